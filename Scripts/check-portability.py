#!/usr/bin/env python3
"""Fails on C library spellings in Sources/ that compile against glibc only, so that the first
Mac build does not break on them (there is no Mac to build on here):
- `Glibc.x` or `Darwin.x` by module name (call `Platform.x`, MeridianCore/Platform/Platform.swift);
- `st_mtim`, `st_atim`, `st_ctim` (Darwin's are `st_mtimespec`…: `Platform.modificationTime`);
- `pthread_t()` outside a `#if` that names Darwin or Linux (Darwin's pthread_t is a pointer);
- `import Glibc` without a Darwin branch beside it;
- Linux-only calls (sync_file_range, posix_fadvise, mallopt, prctl, O_TMPFILE, /proc/) outside
  `#if os(Linux)` (or `canImport(Glibc)`).
Platform.swift itself, where the two spellings meet, is exempt. Usage: Scripts/check-portability.py"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "Sources"
EXEMPT = {"MeridianCore/Platform/Platform.swift"}
QUALIFIED = re.compile(r"\b(Glibc|Darwin)\.[a-z_]")
TIME_FIELDS = re.compile(r"\bst_[amc]tim\b")
LINUX_ONLY = re.compile(r"\b(sync_file_range|posix_fadvise|POSIX_FADV_\w+|mallopt|M_\w+_THRESHOLD|prctl|PR_SET_\w+|O_TMPFILE)\b|\"/proc/")
LINUX_GUARD = re.compile(r"os\(Linux\)|canImport\(Glibc\)")
PLATFORM_GUARD = re.compile(r"os\(Linux\)|canImport\(Glibc\)|canImport\(Darwin\)|os\(macOS\)")


def problems(path, text):
    found = []
    stack = []  # the conditions of the #if blocks we are in
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        code = line.split("//", 1)[0]
        stripped = code.strip()
        if stripped.startswith("#if "):
            stack.append(stripped[4:])
            continue
        if stripped.startswith("#elseif "):
            if stack:
                stack[-1] = stripped[8:]
            continue
        if stripped.startswith("#else"):
            if stack:
                stack[-1] = "else of " + stack[-1]
            continue
        if stripped.startswith("#endif"):
            if stack:
                stack.pop()
            continue
        where = f"{path}:{number}"
        if QUALIFIED.search(code):
            found.append(f"{where}: a C call named by its module ({QUALIFIED.search(code).group(0)}…): call Platform's")
        if TIME_FIELDS.search(code):
            found.append(f"{where}: {TIME_FIELDS.search(code).group(0)} is glibc's spelling: use Platform.modificationTime")
        if "pthread_t()" in code and not any(PLATFORM_GUARD.search(c) for c in stack):
            found.append(f"{where}: pthread_t() does not compile on Darwin (a pointer there)")
        if LINUX_ONLY.search(code) and not any(LINUX_GUARD.search(c) and not c.startswith("else of") for c in stack):
            found.append(f"{where}: {LINUX_ONLY.search(code).group(0)} is Linux-only: put it inside #if os(Linux)")
        if stripped == "import Glibc":
            window = "\n".join(lines[max(0, number - 3):number + 3])
            if "canImport(Darwin)" not in window and "os(macOS)" not in window:
                found.append(f"{where}: import Glibc without a Darwin branch beside it")
    return found


def main():
    found = []
    for source in sorted(ROOT.rglob("*.swift")):
        relative = source.relative_to(ROOT).as_posix()
        if relative in EXEMPT:
            continue
        found += problems(f"Sources/{relative}", source.read_text(encoding="utf-8"))
    for problem in found:
        print(problem, file=sys.stderr)
    if found:
        print(f"check-portability: {len(found)} glibc-only spellings", file=sys.stderr)
        return 1
    print("check-portability: no glibc-only spellings in Sources/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
