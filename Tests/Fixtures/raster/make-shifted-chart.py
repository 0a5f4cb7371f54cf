#!/usr/bin/env python3
"""Writes 19347_2-east.KAP beside this script: NOAA chart 19347_2 moved 0.0095 degrees east, so
that it overlaps the original as neighbouring NOAA charts overlap (each one's collar lies over the
other's chart area). The fixtures hold no two real charts that overlap; this is the stand-in.

Only the text header changes: every longitude (REF/ control points, PLY/ outline) and the constant
terms of the WPX/ and PWX/ polynomials, each rewritten with as many characters as it had, so the
image data and the index of row offsets at the end of the file stay valid.
Run from anywhere: python3 make-shifted-chart.py [SOURCE.KAP OUTPUT.KAP DEGREES]"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
source = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '19347_2.KAP')
output = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, '19347_2-east.KAP')
east = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0095

data = open(source, 'rb').read()
end = data.index(b'\x1a')   # the header ends at Ctrl-Z
header = data[:end].decode('latin-1')


def same_width(text, value):
    """value printed like text: fixed decimals, or a mantissa and a three-digit exponent."""
    if 'e' in text:
        mantissa, exponent = f'{value:.{len(text.split("e")[0].split(".")[1])}e}'.split('e')
        formatted = f'{mantissa}e{exponent[0]}{int(exponent[1:]):03d}'
    else:
        formatted = f'{value:.{len(text.split(".")[1])}f}'
    if len(formatted) != len(text):
        sys.exit(f'{text} -> {formatted}: the width changed')
    return formatted


def shift_field(line, index, change):
    fields = line.split(',')
    fields[index] = same_width(fields[index], change(float(fields[index])))
    return ','.join(fields)


wpx_lon_coefficient = None
lines = header.split('\r\n') if '\r\n' in header else header.split('\n')
for i, line in enumerate(lines):
    if line.startswith('WPX/'):
        wpx_lon_coefficient = float(line.split(',')[2])
for i, line in enumerate(lines):
    if line.startswith('REF/'):
        lines[i] = shift_field(line, 4, lambda lon: lon + east)
    elif line.startswith('PLY/'):
        lines[i] = shift_field(line, 2, lambda lon: lon + east)
    elif line.startswith('PWX/'):   # longitude = a + b·x + c·y + …: a moves east
        lines[i] = shift_field(line, 1, lambda a: a + east)
    elif line.startswith('WPX/'):   # x = a + b·longitude + c·latitude + …: a takes b·east off
        lines[i] = shift_field(line, 1, lambda a: a - wpx_lon_coefficient * east)
separator = '\r\n' if '\r\n' in header else '\n'
shifted = separator.join(lines).encode('latin-1')
assert len(shifted) == end and re.search(rb'REF/', shifted)
with open(output, 'wb') as file:
    file.write(shifted + data[end:])
