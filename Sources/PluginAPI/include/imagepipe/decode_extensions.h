/* imagepipe plugin ABI — named decode extensions: policy some coders take part in.
 *
 * The host chains them on ip_decode_options.extensions. A coder lists the IDs it honours in
 * ip_coder_descriptor.decode_extensions; the host then leaves that step to the coder, and otherwise does it
 * itself after decoding (tint) or does without (a password for a format that has none). A coder ignores
 * extensions whose IDs it does not know.
 * An extension struct starts with an ip_decode_extension head whose struct_size covers the whole struct; a
 * later minor appends fields to it, and a new meaning takes a new ID.
 */
#ifndef IMAGEPIPE_DECODE_EXTENSIONS_H
#define IMAGEPIPE_DECODE_EXTENSIONS_H

#include <stdint.h>
#include "options.h"
#include "export.h"

IP_EXTERN_C_BEGIN

/* Tint. With IP_TINT_TEMPLATE the output is the tint colour with the decoded alpha (SwiftUI's
 * .renderingMode(.template)); without it a vector coder only uses the colour as CSS currentColor. */
#define IP_DECODE_EXTENSION_TINT "org.imagepipe.decode.tint/1"
#define IP_TINT_TEMPLATE (1u << 0)
typedef struct ip_decode_tint {
    ip_decode_extension head;
    /* Non-premultiplied 0xRRGGBBAA. */
    uint32_t rgba;
    /* IP_TINT_* bits. */
    uint32_t flags;
} ip_decode_tint;

/* The password of an encrypted document (PDF user password). */
#define IP_DECODE_EXTENSION_PASSWORD "org.imagepipe.decode.password/1"
typedef struct ip_decode_password {
    ip_decode_extension head;
    /* NUL-terminated UTF-8. Borrowed as the options are. */
    const char *password;
} ip_decode_password;

/* The source read by ranges instead of held in memory (ABI 1.1): a large local file is not copied into the
 * process whole when its coder reads only what it needs (a TIFF's strips or tiles, a PNG's chunks as libpng asks).
 * With this extension present, ip_decode_request.data/size hold only a prefix of the source (at least its first
 * 64 KiB, or all of a smaller source: what sniffing and a header read need) and the whole source is `size` bytes
 * read through `read_at`. The host sends it only to a coder that lists the ID in decode_extensions, and only where
 * the coder runs in the host's process (an isolated worker receives the whole bytes). A coder that lists the ID
 * must read past the prefix through read_at only. */
#define IP_DECODE_EXTENSION_SOURCE "org.imagepipe.decode.source/1"
typedef struct ip_decode_source {
    ip_decode_extension head;
    /* The whole source's size in bytes (the file's size when the decode began). */
    uint64_t size;
    /* Passed back to read_at. Borrowed as the options are. */
    void *context;
    /* Copies up to `length` bytes at `offset` into `buffer`, as pread(2) does: returns the count copied (less than
     * `length` only at the end of the source, or where a file shrank while it was read), 0 at or past the end, -1
     * on an I/O error. Thread-safe: it keeps no position, so a coder may read from several threads at once. */
    int64_t (*read_at)(void *context, uint64_t offset, void *buffer, size_t length);
} ip_decode_source;

IP_EXTERN_C_END

#endif
