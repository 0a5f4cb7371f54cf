// glibc's malloc tuning (mallopt), which Swift's Glibc module does not export: vector tiling
// sets it once, before its threads start (meridian-gdal). Nothing is linked: it is libc's.
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
