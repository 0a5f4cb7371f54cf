// expat's C API: the streaming (SAX) XML parser under the KML reader.
#include <expat.h>
