// libwebp's decoder: WebP basemap tiles.
#include <webp/decode.h>
