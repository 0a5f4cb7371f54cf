#!/usr/bin/env python3
"""Per zoom level, what a vector tile set holds, read independently of Meridian: tiles, features,
bytes, the largest tile (its bytes uncompressed and its features), and whether any tile is over
the limits (500,000 bytes, 200,000 features: tippecanoe's defaults, Meridian's too).

Usage: tile-counts.py TILESET… (a PMTiles archive, read with PyPI's pmtiles, or a z/x/y.pbf folder)

Features are counted by walking each tile's protocol buffer (a layer is field 3 of the tile, a
feature field 2 of its layer), which is fast enough for millions of tiles; PyPI's
mapbox-vector-tile decodes every tile of the levels with at most DECODED_TILES tiles and a
fixed sample of the others, and must count the same. Prints a table per tile set and exits 1
when a tile is over the limits or the two readers disagree.
"""
import gzip
import os
import random
import sys
from collections import defaultdict

import mapbox_vector_tile
from pmtiles.reader import MmapSource, all_tiles

MAXIMUM_BYTES, MAXIMUM_FEATURES = 500_000, 200_000
DECODED_TILES, SAMPLED_TILES = 20_000, 500


def varint(data, offset):
    value = shift = 0
    while True:
        byte = data[offset]
        offset += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, offset
        shift += 7


def fields(data):
    """(field number, payload or None) for each field of a message; payloads of length-delimited fields."""
    offset = 0
    while offset < len(data):
        key, offset = varint(data, offset)
        kind = key & 7
        if kind == 0:
            _, offset = varint(data, offset)
            yield key >> 3, None
        elif kind == 2:
            length, offset = varint(data, offset)
            yield key >> 3, data[offset:offset + length]
            offset += length
        elif kind == 1:
            offset += 8
            yield key >> 3, None
        elif kind == 5:
            offset += 4
            yield key >> 3, None
        else:
            raise ValueError("wire type %d" % kind)


def feature_count(tile):
    return sum(1 for number, layer in fields(tile) if number == 3 for n, _ in fields(layer) if n == 2)


def tiles(path):
    """((z, x, y), uncompressed bytes) of every tile."""
    if os.path.isdir(path):
        for root, _, names in os.walk(path):
            for name in names:
                if not name.endswith((".pbf", ".mvt")):
                    continue
                z, x = (int(part) for part in os.path.relpath(root, path).split(os.sep)[-2:])
                with open(os.path.join(root, name), "rb") as f:
                    data = f.read()
                yield (z, x, int(name.split(".")[0])), data
    else:
        with open(path, "rb") as f:
            for address, data in all_tiles(MmapSource(f)):
                yield address, data


def main():
    failed = False
    for path in sys.argv[1:]:
        per_zoom = defaultdict(lambda: [0, 0, 0, 0, 0])  # tiles, features, bytes, largest bytes, most features
        by_zoom = defaultdict(list)
        for address, data in tiles(path):
            if data[:2] == b"\x1f\x8b":
                data = gzip.decompress(data)
            count = feature_count(data)
            row = per_zoom[address[0]]
            row[0] += 1
            row[1] += count
            row[2] += len(data)
            row[3] = max(row[3], len(data))
            row[4] = max(row[4], count)
            by_zoom[address[0]].append((address, data, count))
        print(path)
        print("  zoom      tiles    features        MB  largest tile (bytes, features)")
        for zoom in sorted(per_zoom):
            tiles_, features, size, largest, most = per_zoom[zoom]
            over = largest > MAXIMUM_BYTES or most > MAXIMUM_FEATURES
            failed |= over
            print("  %4d %10d %11d %9.1f  %d, %d%s" % (zoom, tiles_, features, size / 1e6, largest, most, "  OVER THE LIMITS" if over else ""))
        total = [sum(row[i] for row in per_zoom.values()) for i in range(3)]
        print("  all  %10d %11d %9.1f" % (total[0], total[1], total[2] / 1e6))
        # The independent decoder, on every tile of small levels and a fixed sample of large ones.
        sample = random.Random(32)
        checked = 0
        for zoom, entries in by_zoom.items():
            chosen = entries if len(entries) <= DECODED_TILES else sample.sample(entries, SAMPLED_TILES)
            for address, data, count in chosen:
                decoded = mapbox_vector_tile.decode(data)
                if sum(len(layer["features"]) for layer in decoded.values()) != count:
                    print("  tile %s: mapbox-vector-tile counts other features" % (address,))
                    failed = True
                checked += 1
        print("  mapbox-vector-tile decoded %d tiles, counts agree%s" % (checked, "" if not failed else " (NOT ALL)"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
