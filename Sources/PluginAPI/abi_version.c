/* The PluginAPI target is header-only; SwiftPM needs one source file per C target. */
#include "imagepipe/imagepipe.h"

const unsigned imagepipe_host_abi_major = IP_ABI_MAJOR;
