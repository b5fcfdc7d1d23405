/* imagepipe plugin ABI — umbrella header. Include this one.
 * Conventions: every struct starts with struct_size; every string is NUL-terminated UTF-8; every function
 * pointer's comment states ownership and ends with a thread tag:
 *   [thread-safe]      any thread, concurrently
 *   [host-thread]      one host thread at a time (the host serialises)
 *   [loader-thread]    a thread the loader chooses, one callback at a time per task
 *   [caller-thread]    the thread that called the function the pointer was passed to
 *   [one thread at a time per X]  any thread, but never two calls on the same X (iterator, decoder) at once
 *   [thread-safe if BIT]  [thread-safe] when the descriptor's capabilities carry BIT, else [host-thread]
 * Lifetimes: "borrowed" data is valid only during the call it is passed to; descriptors, their strings and their
 * NULL-terminated arrays are read by the host for as long as the process runs (a plugin is never unloaded), so
 * they are static data of the plugin. Everything the host hands over is host-owned unless a comment says otherwise.
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
