#!/usr/bin/env python3
"""Runs a command and prints its wall seconds, peak resident memory in KiB and CPU seconds (user
plus system) ("SECONDS KIB CPU-SECONDS").

`common.sh`'s `measure` uses it. The clock starts just before the command is spawned and stops
just after it is reaped; the memory is `/usr/bin/time`'s account of the command (a child spawned
from Python itself would count Python's own 13 MB: it runs in Python's memory until its exec).
Timed with `date` around `/usr/bin/time`, every run also counted the two `date` processes,
2-2.5 ms, which weighed on the faster tool's ratio; `/usr/bin/time`'s own start-up, under a
millisecond, is still counted.

Usage: timed.py WORK_FOLDER COMMAND [ARG ...]
The command's standard output is discarded and its standard error written to WORK_FOLDER/stderr;
the exit status is the command's (1 if a signal ended it).
"""
import os
import sys
import tempfile
import time


def main() -> int:
    folder, command = sys.argv[1], sys.argv[2:]
    handle, memory = tempfile.mkstemp(dir=folder, prefix="peak.")  # its own: runs may overlap
    os.close(handle)
    timed = ["/usr/bin/time", "-f", "%M %U %S", "-o", memory, *command]
    with open(os.path.join(folder, "stderr"), "wb") as errors, open(os.devnull, "wb") as discard:
        actions = [(os.POSIX_SPAWN_DUP2, discard.fileno(), 1), (os.POSIX_SPAWN_DUP2, errors.fileno(), 2)]
        start = time.perf_counter()
        pid = os.posix_spawn(timed[0], timed, os.environ, file_actions=actions)
        _, status = os.waitpid(pid, 0)
        seconds = time.perf_counter() - start
    with open(memory) as peak:
        kib, user, system = peak.read().split()[-3:]
    os.remove(memory)
    print(f"{seconds:.6f} {kib} {float(user) + float(system):.2f}")
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 1


if __name__ == "__main__":
    sys.exit(main())
