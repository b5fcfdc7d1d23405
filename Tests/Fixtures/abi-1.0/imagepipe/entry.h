/* imagepipe plugin ABI — the plugin entry: the one symbol a plugin exports.
 *
 *   const ip_plugin_entry *imagepipe_plugin_entry(void);
 *
 * It returns a pointer to a static, immutable table and must be pure: no I/O, no threads, no allocation that
 * outlives a static initialiser. Everything else is reached through get_factory() by versioned string ID.
 * Rationale: a function rather than a data symbol because Swift can export a C-named function (@_cdecl) but not
 * a C-named variable.
 */
#ifndef IMAGEPIPE_ENTRY_H
#define IMAGEPIPE_ENTRY_H

#include <stddef.h>
#include <stdint.h>
#include "host.h"
#include "status.h"
#include "export.h"

IP_EXTERN_C_BEGIN

#define IP_ENTRY_SYMBOL "imagepipe_plugin_entry"

typedef struct ip_plugin_entry {
    uint32_t struct_size;
    /* Must equal the host's IP_ABI_MAJOR. */
    uint32_t abi_major;
    /* The minor this plugin was built against. */
    uint32_t abi_minor;
    /* Reverse-DNS plugin ID, e.g. "org.imagepipe.png". Static. */
    const char *id;
    const char *name;
    const char *version;
    const char *vendor;
    const char *description;

    /* Called once, before any factory is used. host (this plugin's own) stays valid for the life of the process.
     * plugin_path is the absolute path the host loaded this plugin from (borrowed for the call), for plugins
     * that keep data beside their .so. host_abi_minor is the host's minor; the plugin writes the minor it will
     * speak to *plugin_abi_minor. A non-OK status refuses the load (the message says why); deinit is then not
     * called. May be NULL. [host-thread] */
    ip_status (*init)(const ip_host *host, const char *plugin_path, uint32_t host_abi_minor,
                      uint32_t *plugin_abi_minor, ip_message message);
    /* Called at most once, after the last use of any factory. May be NULL. [host-thread] */
    void (*deinit)(void);
    /* Returns a static factory table for a versioned ID ("org.imagepipe.coders/1"), or NULL for an ID the
     * plugin does not provide. Callable before init. [thread-safe] */
    const void *(*get_factory)(const char *factory_id);
    /* Returns a static extension table for a versioned ID, or NULL for any ID the plugin does not provide (an
     * unknown ID is never an error). No plugin extensions are defined in 1.0. [thread-safe] */
    const void *(*get_extension)(const char *extension_id);
} ip_plugin_entry;

typedef const ip_plugin_entry *(*ip_plugin_entry_function)(void);

/* Defined by the plugin; not by the host. The one symbol a plugin exports. */
IP_EXPORT const ip_plugin_entry *imagepipe_plugin_entry(void);

IP_EXTERN_C_END

#endif
