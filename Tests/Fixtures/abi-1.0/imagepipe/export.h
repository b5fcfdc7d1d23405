/* imagepipe plugin ABI — linkage and symbol visibility, shared by every header.
 *
 * IP_EXTERN_C_BEGIN / IP_EXTERN_C_END wrap every header's declarations, so a C++ plugin sees C linkage for the
 * entry point and for the function-pointer types of the tables (a C++ compiler may treat a function type's
 * language linkage as part of its type). IP_EXPORT marks the one symbol a plugin exports,
 * imagepipe_plugin_entry; build plugins with -fvisibility=hidden so nothing else leaves the library.
 */
#ifndef IMAGEPIPE_EXPORT_H
#define IMAGEPIPE_EXPORT_H

#ifdef __cplusplus
#define IP_EXTERN_C_BEGIN extern "C" {
#define IP_EXTERN_C_END }
#else
#define IP_EXTERN_C_BEGIN
#define IP_EXTERN_C_END
#endif

#if defined(__GNUC__) || defined(__clang__)
#define IP_EXPORT __attribute__((visibility("default")))
#else
#define IP_EXPORT
#endif

#endif
