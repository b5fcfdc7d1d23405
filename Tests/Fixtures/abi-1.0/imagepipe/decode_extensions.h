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

IP_EXTERN_C_END

#endif
