// cairo's C API: image surfaces, paths, the toy text API and PNG in and out.
#include <cairo.h>
