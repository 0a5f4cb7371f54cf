#!/usr/bin/env python3
"""Writes the crafted KMZ archives beside this script, byte by byte (Python's zipfile will not
write most of them). Run from anywhere: python3 make.py. Each is described in README.md."""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
KML = (b'<kml xmlns="http://www.opengis.net/kml/2.2"><Document>'
       + b''.join(b'<Placemark><name>p%d</name><Point><coordinates>%d,%d</coordinates></Point></Placemark>\n' % (i, i % 180, i % 90)
                  for i in range(400))
       + b'</Document></kml>\n')


def deflate(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def archive(entries):
    """entries: (name, stored bytes, method, flag, crc, compressed size, uncompressed size)."""
    out, central = b'', b''
    for name, data, method, flag, crc, csize, usize in entries:
        offset = len(out)
        out += struct.pack('<IHHHHHIIIHH', 0x04034B50, 20, flag, method, 0, 0x5576, crc, csize, usize, len(name), 0) + name + data
        central += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014B50, 20, 20, flag, method, 0, 0x5576, crc, csize, usize,
                               len(name), 0, 0, 0, 0, 0, offset) + name
    count = len(entries)
    end = struct.pack('<IHHHHIIH', 0x06054B50, 0, 0, count, count, len(central), len(out), 0)
    return out + central + end


def entry(name, data, method=8, flag=0, cut=None):
    packed = deflate(data) if method == 8 else data
    if cut is not None:
        packed = packed[:cut]
    return (name, packed, method, flag, zlib.crc32(data), len(packed), len(data))


def write(name, data):
    with open(os.path.join(HERE, name), 'wb') as f:
        f.write(data)


whole = deflate(KML)
write('deflate-stops-short.kmz', archive([entry(b'doc.kml', KML, cut=len(whole) // 2)]))
write('wrong-crc.kmz', archive([entry(b'doc.kml', KML)[:4] + (zlib.crc32(KML) ^ 1,) + entry(b'doc.kml', KML)[5:]]))
write('encrypted.kmz', archive([entry(b'doc.kml', KML, flag=1)]))
write('unknown-method.kmz', archive([entry(b'doc.kml', KML)[:2] + (12,) + entry(b'doc.kml', KML)[3:]]))
write('path-traversal-only.kmz', archive([entry(n, KML) for n in
      (b'../evil.kml', b'/etc/evil.kml', b'..\\evil.kml', b'files/../../evil.kml')]))
write('path-traversal-mixed.kmz', archive([entry(b'../../../tmp/evil.png', b'not an image'), entry(b'doc.kml', KML)]))
damaged = archive([entry(b'doc.kml', KML)])
write('central-directory-overclaims.kmz', damaged[:-22] + struct.pack('<IHHHHIIH', 0x06054B50, 0, 0, 60000, 60000,
                                                                       *struct.unpack('<II', damaged[-10:-2]), 0))
