#!/usr/bin/env python3
"""Takes a screenshot of a page in headless Chromium once the page says it is drawn.

Usage: Scripts/browser-screenshot.py PAGE_URL OUT.png [--size 640x480] [--timeout 60]
                                     [--ready 'window.meridianViewerReady === true']
                                     [--evaluate EXPRESSION]

Drives Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: the browser
reads commands from file descriptor 3 and writes answers to 4, each a JSON message ended by
a NUL byte), so no port is opened and no package beyond python3's standard library is needed
(Python, not Swift: Foundation's Process cannot hand a child descriptors 3 and 4).

The picture is taken only when the READY expression is true in the page (polled with
Runtime.evaluate): Meridian's viewer pages set window.meridianViewerReady when the map has
drawn everything it asked for (MapLibre's `idle`, Leaflet's tile layer `load`) and one more
animation frame has passed. A fixed wait (--virtual-time-budget) is not used: it races the
map's tile loading and gives a different picture from run to run.

With --evaluate, the expression's value once the page is ready (when the screenshot is taken)
is printed to stdout as JSON: where the map put things, for a test to compare with.

Exit status: 0 written; 1 the page was not ready in time or the browser failed (the page's
console messages and errors are printed to stderr); 2 usage or no Chromium.
"""
import argparse
import base64
import fcntl
import json
import select
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    """A headless Chromium and the pipe to its DevTools protocol."""

    def __init__(self, chromium, profile, width, height):
        # Our ends: we write commands into `to_browser`, read answers from `from_browser`.
        browser_reads, self.to_browser = os.pipe()
        self.from_browser, browser_writes = os.pipe()
        arguments = [
            chromium, "--headless", "--no-sandbox", "--remote-debugging-pipe",
            # Software WebGL (SwiftShader): there is no GPU here, and MapLibre needs WebGL 2.
            "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist",
            "--hide-scrollbars", "--mute-audio", "--no-first-run", "--no-default-browser-check",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-extensions", "--user-data-dir=" + profile, f"--window-size={width},{height}",
            "about:blank",
        ]
        # Chromium wants the pipe on descriptors 3 (its input) and 4 (its output): moved there in
        # the child (by way of numbers above both, so neither is overwritten before it moves),
        # and kept open as pass_fds (the child's other descriptors are closed after this runs).
        def place_pipe():
            reads, writes = fcntl.fcntl(browser_reads, fcntl.F_DUPFD, 10), fcntl.fcntl(browser_writes, fcntl.F_DUPFD, 10)
            os.dup2(reads, 3)
            os.dup2(writes, 4)
        self.process = subprocess.Popen(arguments, pass_fds=(3, 4), preexec_fn=place_pipe,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=(None if os.environ.get("BROWSER_SCREENSHOT_LOG") else subprocess.DEVNULL))
        os.close(browser_reads)
        os.close(browser_writes)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None, timeout=30):
        """Sends a command and returns its result (events met on the way are kept)."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self.to_browser, data):]
        deadline = time.monotonic() + timeout
        while True:
            answer = self.receive(deadline)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def receive(self, deadline):
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("the browser did not answer")

            ready, _, _ = select.select([self.from_browser], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                continue
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.to_browser)
        os.close(self.from_browser)

    def console(self):
        """The page's console messages and uncaught errors, one a line."""
        lines = []
        for event in self.events:
            params = event.get("params", {})
            if event.get("method") == "Runtime.consoleAPICalled":
                lines.append(params.get("type", "log") + ": " + " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
            elif event.get("method") == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                lines.append("exception: " + details.get("exception", {}).get("description", details.get("text", "")))
            elif event.get("method") == "Log.entryAdded":
                entry = params.get("entry", {})
                lines.append(f"{entry.get('level')}: {entry.get('text')} {entry.get('url', '')}")
        return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url")
    parser.add_argument("output")
    parser.add_argument("--size", default="640x480")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--ready", default="window.meridianViewerReady === true")
    parser.add_argument("--evaluate")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    options = parser.parse_args()
    try:
        width, height = (int(n) for n in options.size.split("x"))
    except ValueError:
        parser.error("--size takes WIDTHxHEIGHT")
    if not os.access(options.chromium, os.X_OK):
        print(f"browser-screenshot: no Chromium at {options.chromium}", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="browser-screenshot-") as profile:
        browser = Browser(options.chromium, profile, width, height)
        try:
            target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log"):
                browser.send(domain + ".enable", session=session)
            browser.send("Emulation.setDeviceMetricsOverride",
                         {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=session)
            navigated = browser.send("Page.navigate", {"url": options.url}, session=session)
            if navigated.get("errorText"):
                raise RuntimeError(f"cannot open {options.url}: {navigated['errorText']}")
            deadline = time.monotonic() + options.timeout
            while True:
                answer = browser.send("Runtime.evaluate", {"expression": options.ready, "returnByValue": True}, session=session)
                if answer.get("result", {}).get("value") is True:
                    break
                if time.monotonic() > deadline:
                    print(f"browser-screenshot: {options.url} was not ready in {options.timeout:g} s ({options.ready})", file=sys.stderr)
                    for line in browser.console():
                        print("  " + line, file=sys.stderr)
                    return 1
                time.sleep(0.1)
            shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
            if options.evaluate:
                value = browser.send("Runtime.evaluate", {"expression": options.evaluate, "returnByValue": True}, session=session)
                if "exceptionDetails" in value:
                    raise RuntimeError("--evaluate: " + json.dumps(value["exceptionDetails"]))
                print(json.dumps(value.get("result", {}).get("value")))
            with open(options.output + ".partial", "wb") as file:
                file.write(base64.b64decode(shot["data"]))
            os.replace(options.output + ".partial", options.output)
            for line in browser.console():
                print("  " + line, file=sys.stderr)
            return 0
        except (RuntimeError, TimeoutError, OSError) as error:
            print(f"browser-screenshot: {error}", file=sys.stderr)
            for line in browser.console():
                print("  " + line, file=sys.stderr)
            return 1
        finally:
            browser.close()


if __name__ == "__main__":
    sys.exit(main())
