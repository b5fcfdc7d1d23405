/* imagepipe plugin ABI — umbrella header. Include this one.
 * Conventions: every struct starts with struct_size; every string is NUL-terminated UTF-8; every function
 * pointer's comment states ownership and ends with a thread tag:
 *   [thread-safe]      any thread, concurrently
 *   [host-thread]      one host thread at a time (the host serialises)
 *   [loader-thread]    a thread the loader chooses, one callback at a time per task
 *   [caller-thread]    the thread that called the function the pointer was passed to
 */
#ifndef IMAGEPIPE_H
#define IMAGEPIPE_H

#include "export.h"
#include "version.h"
#include "status.h"
#include "image.h"
#include "options.h"
#include "decode_extensions.h"
#include "geometry.h"
#include "host.h"
#include "coder.h"
#include "loader.h"
#include "cache.h"
#include "entry.h"

#endif
