#!/usr/bin/env python3
"""Runs GDAL's C++ tiler, `gdal raster tile` (GDAL 3.11 and later), through its Python bindings.

`Benchmarks/tile-peers` runs it with the gdal-wheel package's Python (a venv of Python 3.12 in
the build folder): the wheel ships GDAL 3.13 as a library with its Python bindings but no `gdal`
executable, so the algorithm is called as `gdal.Run("raster", "tile", ...)`. The Python start-up
and the import of GDAL (about 0.1-0.2 s, measured by --startup) are part of its time.

Usage: gdal-raster-tile.py INPUT OUTPUT-FOLDER MIN-ZOOM MAX-ZOOM THREADS
       gdal-raster-tile.py --startup       (imports GDAL and exits: the start-up alone)
       gdal-raster-tile.py --version
"""
import sys

from osgeo import gdal


def main() -> int:
    gdal.UseExceptions()
    if sys.argv[1:] == ["--startup"]:
        return 0
    if sys.argv[1:] == ["--version"]:
        print(gdal.VersionInfo("--version").strip())
        return 0
    source, output, min_zoom, max_zoom, threads = sys.argv[1:]
    # XYZ rows from the top (its default convention, as Meridian's), PNG tiles, 'average' for the
    # base tiles and (by default the same) for the overviews, no web viewer (Meridian writes
    # none unless asked).
    gdal.Run("raster", "tile", input=source, output=output, min_zoom=int(min_zoom), max_zoom=int(max_zoom),
             resampling="average", num_threads=threads, webviewer="none", quiet=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
