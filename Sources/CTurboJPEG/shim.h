// libjpeg-turbo's TurboJPEG API: JPEG basemap tiles decoded in one call, errors as return codes
// (libjpeg's own API reports errors by longjmp, which Swift cannot catch).
#include <turbojpeg.h>
