// minizip (zlib's contrib/minizip): zip archives for KMZ, read with bounded inflates.
#include <unzip.h>
#include <zip.h>
