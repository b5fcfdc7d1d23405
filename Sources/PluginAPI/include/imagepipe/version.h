/* imagepipe plugin ABI — version numbers and the negotiation rule.
 *
 * Rule: a plugin loads only when its abi_major equals the host's. abi_minor only grows; a minor
 * release appends fields to the end of structs and slots to the end of tables, never reorders or
 * removes. The host states its minor in init(); the plugin answers with the minor it will speak
 * (at most min(host minor, the minor it was built for)). Both sides then read only the fields that
 * exist in the smaller of the two `struct_size`s they see, and default the rest.
 *
 * 1.0 is frozen (Sources/PluginAPI/README.md): its struct sizes are the floor every reader accepts, and a verbatim
 * copy of its headers (Tests/Fixtures/abi-1.0) is checked against these on every test run.
 * 1.1 appends (each marked "ABI 1.1" where it is declared): coder, loader and cache slots that receive their own
 * component (coder.h "2" slots, ip_cache.open2), configured loader instances (ip_loader.open/start2/close), and the
 * response-header and redirect callbacks of ip_load_callbacks, and transcoding (ip_coder.transcode, the descriptor's
 * `transcodes` pairs, IP_CODER_TRANSCODES: a file converted to another format without pixels), and encoder settings
 * (ip_encode_options.settings: "key=value" lines for one format's encoder), and writing loaders (ip_loader.put and
 * describe, ip_put_request, ip_object_info, IP_LOADER_WRITES: outputs to object storage), and IP_LOADER_RANGES
 * (a loader that honours a "Range:" request line: header-only reads of large remote sources), and a probe's metadata
 * blocks (ip_image_info.exif, .xmp: what `info` summarises), and the blocks an encoder embeds (ip_encode_options.exif,
 * .xmp: what the metadata policy keeps), and the decode extension of a source read by ranges
 * (IP_DECODE_EXTENSION_SOURCE: a large local file read strip by strip, not copied whole).
 *
 * Rationale: `struct_size` on every struct (rather than only a version number) lets a reader handle
 * a table from a newer or older minor without knowing which fields that minor added.
 */
#ifndef IMAGEPIPE_VERSION_H
#define IMAGEPIPE_VERSION_H
#include "export.h"

IP_EXTERN_C_BEGIN

#define IP_ABI_MAJOR 1
#define IP_ABI_MINOR 1

/* Largest struct_size a reader accepts before declaring a table corrupt. */
#define IP_MAX_STRUCT_SIZE 4096

IP_EXTERN_C_END

#endif
