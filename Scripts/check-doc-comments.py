#!/usr/bin/env python3
"""Lists every public or open declaration of the libraries that has no doc comment (`///` or a
`/** */` block) right above it or above its attributes; exits 1 if there is any.

Usage: Scripts/check-doc-comments.py [Sources]   (executables are skipped: they have no API)
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Sources")
declaration = re.compile(r"^\s*(@\w+(\([^)]*\))?\s+)*(public|open)\s+(?!import\b|extension\b)")
missing = []
for folder, _, files in sorted(os.walk(root)):
    module = os.path.relpath(folder, root).split(os.sep)[0]
    if module.startswith("meridian"):  # meridian, meridian-gdal, meridian-draw, meridian-fuzz
        continue
    for name in sorted(f for f in files if f.endswith(".swift")):
        path = os.path.join(folder, name)
        lines = open(path, encoding="utf-8").read().split("\n")
        for number, line in enumerate(lines):
            if not declaration.match(line):
                continue
            above = number - 1
            while above >= 0 and lines[above].strip().startswith("@"):
                above -= 1
            previous = lines[above].strip() if above >= 0 else ""
            if not (previous.startswith("///") or previous.endswith("*/")):
                missing.append(f"{os.path.relpath(path)}:{number + 1}: {line.strip()}")
for entry in missing:
    print(entry)
if missing:
    print(f"{len(missing)} public declarations have no doc comment", file=sys.stderr)
    sys.exit(1)
