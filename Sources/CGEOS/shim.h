// GEOS's C API (reentrant): vector tile polygons made valid after snapping to the tile grid.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
