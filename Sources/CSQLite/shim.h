// SQLite's C API, for MBTiles tile stores.
#include <sqlite3.h>
