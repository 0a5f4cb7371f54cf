#!/usr/bin/env python3
"""`meridian tile --excluded-values` against `gdal raster tile --excluded-values` (GDAL 3.13,
gdal-wheel), pixel by pixel, on Tests/Fixtures/raster/white-margin.tif (a navy square in a white
margin whose inner edge falls half-way through the pixels of zoom 1): for each threshold and zoom
range, the pixels that differ in all, and those that differ where Meridian's tile has data (GDAL
also paints the excluded colour, opaque, one pixel outside the raster). A check of semantics, not
a timing; run by Benchmarks/tile-excluded-values with the gdal-wheel venv's Python.

Usage: tile-excluded-values.py MERIDIAN WORK-FOLDER
"""
import os
import subprocess
import sys

from osgeo import gdal

gdal.UseExceptions()
fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "raster", "white-margin.tif")


def rgba(path):
    dataset = gdal.Open(path)
    bands = [dataset.GetRasterBand(i + 1).ReadRaster() for i in range(dataset.RasterCount)]
    if len(bands) == 3:
        bands.append(b"\xff" * (dataset.RasterXSize * dataset.RasterYSize))
    return list(zip(*bands))


def compare(ours, theirs):
    """(tiles, pixels, differing, differing where ours has data) over our PNG tiles."""
    tiles = pixels = differing = inside = 0
    for root, _, names in os.walk(ours):
        for name in names:
            if not name.endswith(".png"):
                continue
            path = os.path.join(root, name)
            a, b = rgba(path), rgba(os.path.join(theirs, os.path.relpath(path, ours)))
            tiles += 1
            pixels += len(a)
            differing += sum(1 for x, y in zip(a, b) if x != y)
            inside += sum(1 for x, y in zip(a, b) if x != y and x[3] > 0)
    return tiles, pixels, differing, inside


def main():
    meridian, work = sys.argv[1:3]
    print(f"gdal raster tile: {gdal.VersionInfo('--version').strip()}; input {os.path.relpath(fixture)}")
    print("threshold  zooms  tiles  pixels  differing  differing-inside-the-data")
    for threshold in [None, 40, 50, 60]:
        for top in [2, 1]:
            label = f"{threshold if threshold is not None else 'none'}-{top}"
            ours, theirs = os.path.join(work, "meridian-" + label), os.path.join(work, "gdal-" + label)
            extra = [] if threshold is None else ["--excluded-values", "255,255,255", "--excluded-values-pct-threshold", str(threshold)]
            subprocess.run([meridian, "tile", fixture, ours, "--zoom", f"0-{top}", "-q"] + extra, check=True)
            options = {} if threshold is None else {"excluded_values": "255,255,255", "excluded_values_pct_threshold": threshold}
            gdal.Run("raster", "tile", input=fixture, output=theirs, min_zoom=0, max_zoom=top, resampling="average",
                     webviewer="none", quiet=True, **options)
            tiles, pixels, differing, inside = compare(ours, theirs)
            print(f"{threshold if threshold is not None else 'none':>9}  0-{top}   {tiles:>5}  {pixels:>6}  {differing:>9}  {inside:>9}")


if __name__ == "__main__":
    main()
