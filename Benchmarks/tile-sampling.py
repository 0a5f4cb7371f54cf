#!/usr/bin/python3
"""Why zoom-17 tiles differ from gdal2tiles': on 25 random interior tiles, PSNR against
gdal2tiles' tiles of (a) Meridian's, (b) GDAL's own warper (gdalwarp -r average straight into
the tile's bounds), and (c) gdal2tiles' sampling done again (its warped VRT, the query window
snapped to that VRT's pixel grid, a 4x nearest-neighbour read, a 4x4 average); and (d) Meridian's
against GDAL's warper. Usage: tile-sampling.py RGBA.vrt GDAL2TILES_DIR MERIDIAN_DIR"""
import math, os, random, sys
import numpy as np
from osgeo import gdal, osr

vrt_path, theirs, mine = sys.argv[1:4]
o = math.pi * 6378137
src = gdal.Open(vrt_path)
web = osr.SpatialReference(); web.ImportFromEPSG(3857)
warped = gdal.AutoCreateWarpedVRT(src, src.GetGCPProjection() or src.GetProjection(), web.ExportToWkt())
gt, W, H = warped.GetGeoTransform(), warped.RasterXSize, warped.RasterYSize
z = max(int(d) for d in os.listdir(theirs) if d.isdigit())
tiles = [(int(x), int(f[:-4])) for x in os.listdir(f"{theirs}/{z}") for f in os.listdir(f"{theirs}/{z}/{x}")]
random.seed(3)
random.shuffle(tiles)

def png(path):
    a = gdal.Open(path).ReadAsArray().astype(float)
    return np.concatenate([a, np.full_like(a[:1], 255)]) if a.shape[0] == 3 else a

sums = {k: [0.0, 0] for k in "abcd"}
def add(key, p, q):
    both = (p[3] > 0) & (q[3] > 0)
    d = (p[:3] - q[:3])[:, both]
    sums[key][0] += float((d * d).sum()); sums[key][1] += d.size

used = 0
for x, y in tiles:
    if used == 25: break
    size = 2 * o / 2 ** z; ulx = x * size - o; uly = o - y * size
    rx, ry = int((ulx - gt[0]) / gt[1] + 0.001), int((uly - gt[3]) / gt[5] + 0.001)
    rxs, rys = max(1, int(size / gt[1] + 0.5)), max(1, int(-size / gt[5] + 0.5))
    if rx < 0 or ry < 0 or rx + rxs > W or ry + rys > H or not os.path.exists(f"{mine}/{z}/{x}/{y}.png"):
        continue  # interior tiles only: edge windows are clipped differently
    used += 1
    g2t, ours = png(f"{theirs}/{z}/{x}/{y}.png"), png(f"{mine}/{z}/{x}/{y}.png")
    ds = gdal.Warp("", src, format="MEM", dstSRS="EPSG:3857", outputBounds=[ulx, uly - size, ulx + size, uly],
                   width=256, height=256, resampleAlg="average", dstAlpha=True)
    warp = ds.ReadAsArray().astype(float)
    redo = np.frombuffer(warped.ReadRaster(rx, ry, rxs, rys, 1024, 1024), np.uint8).reshape(4, 1024, 1024)
    redo = np.round(redo.astype(float).reshape(4, 256, 4, 256, 4).mean(axis=(2, 4)))
    add("a", ours, g2t); add("b", warp, g2t); add("c", redo, g2t); add("d", ours, warp)

def psnr(k):
    se, n = sums[k]
    return 10 * math.log10(255 * 255 / (se / n)) if se else float("inf")
print(f"  zoom {z}, {used} interior tiles, PSNR over pixels opaque in both:")
print(f"    meridian                 vs gdal2tiles  {psnr('a'):6.2f} dB")
print(f"    gdalwarp -r average      vs gdal2tiles  {psnr('b'):6.2f} dB")
print(f"    gdal2tiles' sampling redone vs gdal2tiles  {psnr('c'):6.2f} dB")
print(f"    meridian                 vs gdalwarp -r average  {psnr('d'):6.2f} dB")
