#!/usr/bin/env python3
"""Fails on C library spellings that compile against one C library only, so that the first Mac
build (or a static Linux build against Musl) does not break on them: there is no Mac to build
on here, so portability holds by construction and is checked by this script.

One platform layer: Sources/MeridianCore/Platform/ is the only place that imports the C library
(CLibrary.swift re-exports Glibc, Musl or Darwin to every module that imports MeridianCore;
Platform.swift spells what the C libraries spell differently). In Sources/, Tests/ and
Benchmarks/ it fails on:
- `import Glibc`, `import Darwin` or `import Musl` outside that folder;
- `Glibc.x`, `Darwin.x` or `Musl.x` by module name anywhere (it compiles against one only);
- `st_mtim`, `st_atim`, `st_ctim` outside that folder (Darwin's are `st_mtimespec`…:
  `Platform.modificationTime`);
- `pthread_t()` outside a `#if` that names Darwin or Linux (Darwin's pthread_t is a pointer);
- in Sources/, Linux-only calls (sync_file_range, posix_fadvise, mallopt, prctl, O_TMPFILE,
  /proc/) outside `#if os(Linux)` (or `canImport(Glibc)`, or the `#else` of a Darwin branch);
- in MeridianGeometry (the product apps take on iOS), any import of the C library, of a C
  system-library target (`C…`), of Foundation or of MeridianCore, and any such dependency in
  its Package.swift target.
There is no list of exceptions. Usage: Scripts/check-portability.py"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCANNED = ["Sources", "Tests", "Benchmarks"]
PLATFORM_LAYER = "Sources/MeridianCore/Platform/"
PURE_SWIFT = "Sources/MeridianGeometry/"
C_LIBRARY = r"(?:Glibc|Darwin|Musl)"
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*import\s+(?:(?:struct|func|var|let|enum|class|typealias|protocol)\s+)?(\w+)")
QUALIFIED = re.compile(r"\b" + C_LIBRARY + r"\.[a-z_]")
TIME_FIELDS = re.compile(r"\bst_[amc]tim\b")
LINUX_ONLY = re.compile(r"\b(sync_file_range|posix_fadvise|POSIX_FADV_\w+|mallopt|M_\w+_THRESHOLD|prctl|PR_SET_\w+|O_TMPFILE)\b|\"/proc/")
LINUX_GUARD = re.compile(r"os\(Linux\)|canImport\(Glibc\)")
PLATFORM_GUARD = re.compile(r"os\(Linux\)|canImport\(Glibc\)|canImport\(Darwin\)|os\(macOS\)")
NOT_FOR_APPS = re.compile(r"^(?:Glibc|Darwin|Musl|Foundation|FoundationEssentials|MeridianCore|C[A-Z]\w*)$")


def linux_only_within(condition):
    """Whether code under this #if condition builds only for Linux (or is Darwin's #else)."""
    if condition.startswith("else of "):
        return bool(re.search(r"canImport\(Darwin\)|os\(macOS\)", condition))
    return bool(LINUX_GUARD.search(condition))


def problems(path, text):
    found = []
    stack = []  # the conditions of the #if blocks we are in
    in_layer = path.startswith(PLATFORM_LAYER)
    for number, line in enumerate(text.split("\n"), 1):
        code = re.sub(r'"(?:[^"\\]|\\.)*"', lambda m: m.group(0) if "/proc/" in m.group(0) else '""', line.split("//", 1)[0])
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
        imported = IMPORT.match(code)
        if imported and re.fullmatch(C_LIBRARY, imported.group(1)) and not in_layer:
            found.append(f"{where}: import {imported.group(1)} outside the platform layer ({PLATFORM_LAYER}): import MeridianCore")
        if imported and path.startswith(PURE_SWIFT) and NOT_FOR_APPS.match(imported.group(1)):
            found.append(f"{where}: MeridianGeometry imports {imported.group(1)}: it must build for iOS with no C library")
        if QUALIFIED.search(code):
            found.append(f"{where}: a C call named by its module ({QUALIFIED.search(code).group(0)}…): call Platform's")
        if TIME_FIELDS.search(code) and not in_layer:
            found.append(f"{where}: {TIME_FIELDS.search(code).group(0)} is glibc's spelling: use Platform.modificationTime")
        if "pthread_t()" in code and not any(PLATFORM_GUARD.search(c) for c in stack):
            found.append(f"{where}: pthread_t() does not compile on Darwin (a pointer there)")
        if path.startswith("Sources/") and LINUX_ONLY.search(code) and not any(linux_only_within(c) for c in stack):
            found.append(f"{where}: {LINUX_ONLY.search(code).group(0)} is Linux-only: put it inside #if os(Linux)")
    return found


def geometry_target_problems():
    """MeridianGeometry's dependencies in Package.swift: none a C target or MeridianCore."""
    manifest = (ROOT / "Package.swift").read_text(encoding="utf-8")
    target = re.search(r'\.target\(\s*name:\s*"MeridianGeometry",\s*dependencies:\s*\[(.*?)\]\s*\)', manifest, re.S)
    if not target:
        return ["Package.swift: the MeridianGeometry target (with its dependencies) was not found"]
    names = re.findall(r'(?<!package: )"(\w+)"', target.group(1))
    return [f"Package.swift: MeridianGeometry depends on {name}: it must build for iOS with no C library"
            for name in names if NOT_FOR_APPS.match(name)]


def main():
    found = []
    count = 0
    for folder in SCANNED:
        for source in sorted((ROOT / folder).rglob("*.swift")):
            relative = source.relative_to(ROOT).as_posix()
            count += 1
            found += problems(relative, source.read_text(encoding="utf-8"))
    found += geometry_target_problems()
    for problem in found:
        print(problem, file=sys.stderr)
    if found:
        print(f"check-portability: {len(found)} non-portable spellings", file=sys.stderr)
        return 1
    print(f"check-portability: {count} files portable; the C library is imported only in {PLATFORM_LAYER}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
