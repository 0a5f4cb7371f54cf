#!/usr/bin/python3
"""Compares two PMTiles archives of vector tiles made from the same input (say, before and after
a change to the polygon repair): the tile sets, and for the tiles whose bytes differ, decoded by
PyPI's mapbox-vector-tile, the features per layer, the polygons' area in tile units (shapely) and
the polygons invalid by shapely (GEOS). Tiles are compared inflated (Python's gzip module), so a
change of compressor alone shows as no tile differing. Run with .build/python-checks/bin/python.
Usage: vector-tile-compare.py BEFORE.pmtiles AFTER.pmtiles   -- exit 1 when a polygon in AFTER is invalid."""
import gzip, sys
import mapbox_vector_tile
from pmtiles.reader import MmapSource, all_tiles
from shapely.geometry import shape

def tiles(path):
    with open(path, "rb") as f:
        return {zxy: data for zxy, data in all_tiles(MmapSource(f))}

def inflated(data):
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data

def decoded(data):
    return mapbox_vector_tile.decode(inflated(data), default_options={"y_coord_down": True})

def measure(data):
    features = polygons = invalid = 0
    area = 0.0
    for layer in decoded(data).values():
        for feature in layer["features"]:
            features += 1
            geometry = feature["geometry"]
            if geometry["type"] in ("Polygon", "MultiPolygon"):
                polygons += 1
                g = shape(geometry)
                area += g.area
                if not g.is_valid:
                    invalid += 1
    return features, polygons, area, invalid

before, after = tiles(sys.argv[1]), tiles(sys.argv[2])
print(f"tiles: {len(before)} before, {len(after)} after; only before {len(before.keys() - after.keys())}, only after {len(after.keys() - before.keys())}")
common = sorted(before.keys() & after.keys())
stored = sum(1 for zxy in common if before[zxy] != after[zxy])
differing = [zxy for zxy in common if before[zxy] != after[zxy] and inflated(before[zxy]) != inflated(after[zxy])]
print(f"tiles whose stored bytes differ: {stored}; whose inflated bytes differ: {len(differing)}")
print(f"stored bytes {sum(map(len, before.values()))} before, {sum(map(len, after.values()))} after; "
      f"inflated {sum(len(inflated(d)) for d in before.values())} before, {sum(len(inflated(d)) for d in after.values())} after")
totals = {"before": [0, 0, 0.0, 0], "after": [0, 0, 0.0, 0]}
largest = (0.0, None)
for zxy in differing:
    b, a = measure(before[zxy]), measure(after[zxy])
    for name, m in (("before", b), ("after", a)):
        for i in range(4):
            totals[name][i] += m[i]
    if abs(a[2] - b[2]) > largest[0]:
        largest = (abs(a[2] - b[2]), zxy)
for name, (features, polygons, area, invalid) in totals.items():
    print(f"in those tiles, {name}: {features} features, {polygons} polygons, area {area:.1f} tile units², {invalid} invalid by shapely")
print(f"largest area difference in one tile: {largest[0]:.1f} tile units² at {largest[1]}")
sys.exit(1 if totals["after"][3] else 0)
