// libdeflate: whole-buffer gzip for vector tiles and PMTiles directories (MeridianTiles' Gzip), zlib
// streams for PNG tiles (MeridianRaster's PNGEncoder) and the CRC-32 of PNG chunks.
#include <libdeflate.h>
