#!/usr/bin/env python3
"""Writes the crafted tile archives of this folder (run from it: python3 make.py). Each is a
small file a stranger could hand Meridian, damaged in one way that once crashed it, hung it or
asked for gigabytes; expected.tsv says what each command must do with it. Files that must be
large to do harm are made by the tests at run time instead (HostileTileInputTests), written
by `python3 make.py --large FOLDER`."""
import gzip, os, sqlite3, struct, sys, zlib

def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)

def field(number, wire, payload):
    key = varint(number << 3 | wire)
    return key + (varint(len(payload)) + payload if wire == 2 else payload)

def point_tile():
    """A vector tile of one layer "p" holding one point."""
    feature = field(3, 0, varint(1)) + field(4, 2, varint(9) + varint(4) + varint(4))
    layer = field(15, 0, varint(2)) + field(1, 2, b"p") + field(2, 2, feature) + field(5, 0, varint(4096))
    return field(3, 2, layer)

def directory(entries):
    """PMTiles' directory: (tile id, offset, length, run length) each, gzipped."""
    out, previous = varint(len(entries)), 0
    for tile_id, *_ in entries:
        out += varint(tile_id - previous)
        previous = tile_id
    for entry in entries: out += varint(entry[3])
    for entry in entries: out += varint(entry[2])
    for entry in entries: out += varint(entry[1] + 1)
    return gzip.compress(out, mtime=0)

def pmtiles(name, root, leaves=b"", data=None, addressed=1, minzoom=0, maxzoom=0, patch=None):
    data = gzip.compress(point_tile(), mtime=0) if data is None else data
    metadata = gzip.compress(b'{"name":"crafted","vector_layers":[{"id":"p","fields":{}}]}', mtime=0)
    offsets = [127, 127 + len(root), 127 + len(root) + len(metadata), 127 + len(root) + len(metadata) + len(leaves)]
    header = b"PMTiles" + bytes([3])
    header += struct.pack("<8Q", offsets[0], len(root), offsets[1], len(metadata), offsets[2], len(leaves), offsets[3], len(data))
    header += struct.pack("<3Q", addressed, 1, 1) + bytes([1, 2, 2, 1, minzoom, maxzoom])
    header += struct.pack("<4i", -1800000000, -850000000, 1800000000, 850000000) + bytes([0]) + struct.pack("<2i", 0, 0)
    assert len(header) == 127
    archive = bytearray(header + root + metadata + leaves + data)
    if patch: patch(archive)
    open(name, "wb").write(archive)

def gzip_stream(path, head, zeros, tail=b""):
    """gzip of head, `zeros` zero bytes and tail, written as it is made (little memory)."""
    with open(path, "wb") as file, gzip.GzipFile(fileobj=file, mode="wb", compresslevel=9, mtime=0) as out:
        out.write(head)
        block = bytes(1 << 20)
        for _ in range(zeros >> 20): out.write(block)
        out.write(bytes(zeros & ((1 << 20) - 1)) + tail)

def large(folder):
    """The files that must be large to do harm, made at run time by the tests, in `folder`."""
    tile = gzip.compress(point_tile(), mtime=0)
    one = directory([(0, 0, len(tile), 1)])
    # A root directory stating 2^29 entries over 2^29 zero bytes (half a megabyte gzipped):
    # 17 GB was allocated from the count.
    gzip_stream(folder + "/root.gz", varint(1 << 29), 1 << 29)
    pmtiles(folder + "/root-count-bomb.pmtiles", open(folder + "/root.gz", "rb").read())
    os.remove(folder + "/root.gz")
    # Metadata JSON of 64 MiB of blanks: inflated whole, whatever its size.
    gzip_stream(folder + "/metadata.gz", b"{", 64 << 20, b"}")
    bomb = open(folder + "/metadata.gz", "rb").read()
    os.remove(folder + "/metadata.gz")
    def metadata_bomb(archive):
        archive[24:40] = struct.pack("<2Q", len(archive), len(bomb))
        archive += bomb
    pmtiles(folder + "/metadata-bomb.pmtiles", one, patch=metadata_bomb)
    # A vector tile of 8 million empty layers (16 MiB, 16 KB gzipped).
    layers = gzip.compress(b"\x1a\x00" * (8 << 20), 9, mtime=0)
    vector = {"format": "pbf", "name": "crafted"}
    mbtiles(folder + "/empty-layers.mbtiles", vector, tiles=((0, 0, 0, layers),))
    # A tile of 40 MiB of zeros stored as it is.
    mbtiles(folder + "/zeros-tile.mbtiles", {"format": "png"}, tiles=((0, 0, 0, bytes(40 << 20)),))

def mbtiles(name, metadata, tiles=((0, 0, 0, None),), schema=None):
    if os.path.exists(name): os.remove(name)
    db = sqlite3.connect(name)
    db.execute("PRAGMA page_size = 512")
    db.executescript(schema or "CREATE TABLE metadata (name TEXT, value TEXT); CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);")
    if schema is None:
        db.executemany("INSERT INTO metadata VALUES (?, ?)", metadata.items())
        db.executemany("INSERT INTO tiles VALUES (?, ?, ?, ?)", [(z, x, y, data if data is not None else gzip.compress(point_tile(), mtime=0)) for z, x, y, data in tiles])
    db.commit()
    db.execute("VACUUM")
    db.close()

if sys.argv[1:2] == ["--large"]:
    large(sys.argv[2])
    sys.exit(0)

os.makedirs("pmtiles", exist_ok=True)
tile = gzip.compress(point_tile(), mtime=0)
one = directory([(0, 0, len(tile), 1)])
# The root directory's offset 2^64-1: the seek trapped.
pmtiles("pmtiles/root-offset-max.pmtiles", one, patch=lambda a: a.__setitem__(slice(8, 16), b"\xff" * 8))
# The data section's offset 2^63: offset sums overflowed.
pmtiles("pmtiles/data-offset-2-63.pmtiles", one, patch=lambda a: a.__setitem__(slice(56, 64), struct.pack("<Q", 1 << 63)))
# A tile entry's offset 2^64-2 (stored as 2^64-1).
raw = varint(1) + varint(0) + varint(1) + varint(len(tile)) + varint((1 << 64) - 1)
pmtiles("pmtiles/entry-offset-max.pmtiles", gzip.compress(raw, mtime=0))
# A run of 2^32-1 tiles from id 0, in an archive stating zooms 0-20: 4 billion addresses.
pmtiles("pmtiles/run-length-max.pmtiles", directory([(0, 0, len(tile), (1 << 32) - 1)]), addressed=1 << 40, maxzoom=20)
# 40 leaf pointers in the root, each to the same leaf of 40 pointers to the next leaf, 7
# levels deep (within the depth limit), the last of 40 tiles: 40^7 leaves visited.
levels = [directory([(i, 0, len(tile), 1) for i in range(40)])]
for _ in range(6):
    offset = sum(len(level) for level in levels)  # the leaf below, laid out before this one
    levels.append(directory([(i, offset - len(levels[-1]), len(levels[-1]), 0) for i in range(40)]))
pmtiles("pmtiles/leaf-fanout.pmtiles", directory([(i, sum(map(len, levels[:-1])), len(levels[-1]), 0) for i in range(40)]),
        leaves=b"".join(levels), addressed=1 << 40, maxzoom=3)
# Entries out of order (ids falling).
raw = varint(2) + varint(5) + varint(0) + varint(1) + varint(1) + varint(len(tile)) + varint(len(tile)) + varint(1) + varint(1)
pmtiles("pmtiles/entries-unsorted.pmtiles", gzip.compress(raw, mtime=0), maxzoom=2)
# A stated count far past what the directory's bytes hold.
pmtiles("pmtiles/count-past-bytes.pmtiles", gzip.compress(varint(1 << 40) + bytes(64), mtime=0))
# Zoom 200 in the header.
pmtiles("pmtiles/maxzoom-200.pmtiles", one, maxzoom=200)

os.makedirs("mbtiles", exist_ok=True)
vector = {"format": "pbf", "name": "crafted", "json": '{"vector_layers":[{"id":"p","fields":{}}]}'}
mbtiles("mbtiles/minzoom-negative.mbtiles", {**vector, "minzoom": "-1", "maxzoom": "0"})
mbtiles("mbtiles/maxzoom-300.mbtiles", {**vector, "minzoom": "0", "maxzoom": "300"})
mbtiles("mbtiles/bounds-nan.mbtiles", {**vector, "bounds": "nan,0,1,1"})
mbtiles("mbtiles/bounds-inf.mbtiles", {**vector, "bounds": "inf,0,1,1"})
mbtiles("mbtiles/bounds-1000.mbtiles", {**vector, "bounds": "-1000,0,1,1"})
# A PNG basemap whose one tile sits at zoom 62.
png = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d5d3a80000000049454e44ae426082")
mbtiles("mbtiles/zoom-62.mbtiles", {"format": "png", "name": "deep"}, tiles=((62, 5, 5, png),))
# `tiles`, then `metadata`, as a view that recurses without end.
recursive = """CREATE TABLE metadata (name TEXT, value TEXT);
INSERT INTO metadata VALUES ('format', 'pbf');
CREATE VIEW tiles AS WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n)
    SELECT i % 31 AS zoom_level, 0 AS tile_column, 0 AS tile_row, zeroblob(1000) AS tile_data FROM n ORDER BY random();"""
mbtiles("mbtiles/tiles-recursive-view.mbtiles", None, schema=recursive)
mbtiles("mbtiles/metadata-recursive-view.mbtiles", None, schema="""CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
CREATE VIEW metadata AS WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n) SELECT 'k' || i AS name, 'v' AS value FROM n ORDER BY random();""")

# Folders: metadata.json stating a zoom of 1e300, bounds of NaN text and the like.
for name, text in [("minzoom-1e300", '{"format":"pbf","minzoom":1e300,"maxzoom":2}'),
                   ("maxzoom-31", '{"format":"pbf","minzoom":0,"maxzoom":31}'),
                   ("bounds-past-180", '{"format":"pbf","bounds":[-200,0,10,10]}')]:
    os.makedirs(f"folders/{name}/0/0", exist_ok=True)
    open(f"folders/{name}/metadata.json", "w").write(text + "\n")
    open(f"folders/{name}/0/0/0.pbf", "wb").write(point_tile())

# A basemap folder whose tile is a PNG of 5000x5000 pixels (a few KB of zeros, deflated).
def chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))
side = 5000
pixels = zlib.compress(b"\0" * ((side + 1) * side), 9)
os.makedirs("basemaps/huge-png/0/0", exist_ok=True)
open("basemaps/huge-png/0/0/0.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0))
                                                + chunk(b"IDAT", pixels) + chunk(b"IEND", b""))
