#!/usr/bin/env python3
"""Writes white-margin.tif: a 256 x 256 RGB GeoTIFF in EPSG:3857 covering tile 2/1/1 exactly
(one source pixel a pixel at zoom 2), a navy (30,90,160) square inside a white margin 33 pixels
wide: at zoom 1 the pixels along the margin's inner edge are half white, half navy, which is
where --excluded-values-pct-threshold decides (tests of --excluded-values). Needs gdal_translate."""
import os, subprocess, sys, tempfile

size, margin = 256, 33
rows = bytearray()
for y in range(size):
    for x in range(size):
        inside = margin <= x < size - margin and margin <= y < size - margin
        rows += bytes((30, 90, 160) if inside else (255, 255, 255))
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "white-margin.tif")
with tempfile.TemporaryDirectory() as folder:
    ppm = os.path.join(folder, "margin.ppm")
    with open(ppm, "wb") as f:
        f.write(b"P6 %d %d 255\n" % (size, size) + rows)
    half = 20037508.342789244 / 2
    subprocess.run(["gdal_translate", "-q", "-of", "GTiff", "-co", "COMPRESS=DEFLATE", "-a_srs", "EPSG:3857",
                    "-a_ullr", str(-half), str(half), "0", "0", ppm, out], check=True)
print(out, file=sys.stderr)
