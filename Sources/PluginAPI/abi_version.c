/* The PluginAPI target is header-only, but SwiftPM needs one source file per C target. It must define nothing: this
 * file is compiled into every Swift plugin, so any symbol here would be a host-side name inside each plugin's .so.
 * The typedef keeps the translation unit non-empty, as ISO C (and -pedantic) requires. */
#include "imagepipe/imagepipe.h"

typedef int imagepipe_api_defines_no_symbols;
