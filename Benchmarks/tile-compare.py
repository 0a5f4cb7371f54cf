#!/usr/bin/python3
"""Compares two XYZ tile folders: the sets of z/x/y tiles, and the PSNR at one zoom level over
the pixels opaque in both (alpha > 0 in each). Reads PNGs through GDAL's Python bindings.
Usage: tile-compare.py MERIDIAN_DIR GDAL2TILES_DIR ZOOM   -- exit 1 when the sets differ."""
import math, os, sys
import numpy as np
from osgeo import gdal

def tiles(folder):
    found = set()
    for root, _, files in os.walk(folder):
        for f in files:
            if f.endswith((".png", ".jpg", ".webp")) and not f.startswith("."):
                rel = os.path.relpath(os.path.join(root, f), folder).split(os.sep)
                if len(rel) == 3 and rel[0].isdigit():
                    found.add((int(rel[0]), int(rel[1]), int(rel[2].split(".")[0])))
    return found

def rgba(path):
    ds = gdal.Open(path)
    a = ds.ReadAsArray().astype(np.float64)
    if a.ndim == 2: a = a[None]
    n = a.shape[0]
    if n == 1: a = np.stack([a[0], a[0], a[0], np.full_like(a[0], 255)])
    elif n == 2: a = np.stack([a[0], a[0], a[0], a[1]])
    elif n == 3: a = np.concatenate([a, np.full_like(a[:1], 255)])
    return a

mine, theirs, zoom = sys.argv[1], sys.argv[2], int(sys.argv[3])
a, b = tiles(mine), tiles(theirs)
print(f"  tiles: meridian {len(a)}, gdal2tiles {len(b)}, in both {len(a & b)}")
only_a, only_b = sorted(a - b), sorted(b - a)
if only_a: print(f"  only meridian: {len(only_a)} e.g. {only_a[:5]}")
if only_b:
    # gdal2tiles writes fully transparent tiles too; Meridian skips them.
    empty = [t for t in only_b if rgba(os.path.join(theirs, str(t[0]), str(t[1]), f"{t[2]}.png"))[3].max() == 0]
    print(f"  only gdal2tiles: {len(only_b)} ({len(empty)} of them fully transparent) e.g. {only_b[:5]}")
se, n, per_tile = 0.0, 0, []
for (z, x, y) in sorted(a & b):
    if z != zoom: continue
    p = rgba(os.path.join(mine, str(z), str(x), f"{y}.png"))
    q = rgba(os.path.join(theirs, str(z), str(x), f"{y}.png"))
    both = (p[3] > 0) & (q[3] > 0)
    d = (p[:3] - q[:3])[:, both]
    se += float((d * d).sum()); n += d.size
    if d.size and (d * d).mean() > 0: per_tile.append(10 * math.log10(255 * 255 / (d * d).mean()))
mse = se / n if n else 0
psnr = 10 * math.log10(255 * 255 / mse) if mse > 0 else float("inf")
print(f"  zoom {zoom}: PSNR {psnr:.2f} dB over {n // 3} pixels opaque in both (mean of per-tile PSNRs {np.mean(per_tile) if per_tile else float('inf'):.2f} dB)")
print(f"  same tile set: {'yes' if a == b else 'no'}; PSNR >= 35 dB: {'yes' if psnr >= 35 else 'no'}")
sys.exit(0 if a == b and psnr >= 35 else 1)
