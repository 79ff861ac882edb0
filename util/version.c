/* symcut — the library's version string. */
#include <config.h>

#include <symcut.h>

const char *sc_version(void) { return PACKAGE_VERSION; }
