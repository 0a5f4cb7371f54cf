#!/usr/bin/env python3
"""Generates Tests/Fixtures/simplify/douglas-peucker-shapely.json: random-walk tracks in map-point
coordinates and the indices shapely/GEOS keeps with simplify(tolerance, preserve_topology=False).
Run once by hand (pip install shapely); the output is committed so tests need no Python."""
import json, random, shapely
from shapely.geometry import LineString

random.seed(7)
tracks = []
for _ in range(4):
    x, y = random.uniform(0, 2**28), random.uniform(0, 2**28)
    points = []
    for _ in range(1000):
        x += random.gauss(0, 200)
        y += random.gauss(0, 200)
        points.append([round(x, 3), round(y, 3)])
    kept = {}
    for tolerance in [50, 400, 3000]:
        simplified = LineString(points).simplify(tolerance, preserve_topology=False)
        kept[str(tolerance)] = [points.index([c[0], c[1]]) for c in simplified.coords]
    tracks.append({"input": points, "kept": kept})
json.dump({"generator": "shapely %s (GEOS %s): LineString(input).simplify(tolerance, preserve_topology=False); "
                        "'kept' lists the indices of the input points kept, by tolerance in map points"
                        % (shapely.__version__, shapely.geos_version_string), "tracks": tracks},
          open("Tests/Fixtures/simplify/douglas-peucker-shapely.json", "w"))
