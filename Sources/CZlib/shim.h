// zlib: gzip for vector tiles in MBTiles files (the specification stores them compressed).
#include <zlib.h>
