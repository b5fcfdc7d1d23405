#include "mhd_library.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct ip_mhd_library ip_mhd;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];

static void open_library(void) {
    void *library = dlopen(IP_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "cannot load the HTTP server library %s (%s; Debian package libmicrohttpd12)",
                 IP_MHD_SONAME, reason ? reason : "unknown reason");
        return;
    }
    struct ip_mhd_library table;
    const char *missing = NULL;
#define IP_MHD_SYMBOL(field, name) \
    if (!missing && !(*(void **)&table.field = dlsym(library, #name))) missing = #name;
    IP_MHD_SYMBOL(start_daemon, MHD_start_daemon)
    IP_MHD_SYMBOL(stop_daemon, MHD_stop_daemon)
    IP_MHD_SYMBOL(quiesce_daemon, MHD_quiesce_daemon)
    IP_MHD_SYMBOL(get_daemon_info, MHD_get_daemon_info)
    IP_MHD_SYMBOL(get_connection_info, MHD_get_connection_info)
    IP_MHD_SYMBOL(lookup_connection_value, MHD_lookup_connection_value)
    IP_MHD_SYMBOL(suspend_connection, MHD_suspend_connection)
    IP_MHD_SYMBOL(resume_connection, MHD_resume_connection)
    IP_MHD_SYMBOL(create_response_from_buffer, MHD_create_response_from_buffer)
    IP_MHD_SYMBOL(create_response_from_callback, MHD_create_response_from_callback)
    IP_MHD_SYMBOL(add_response_header, MHD_add_response_header)
    IP_MHD_SYMBOL(queue_response, MHD_queue_response)
    IP_MHD_SYMBOL(destroy_response, MHD_destroy_response)
#undef IP_MHD_SYMBOL
    if (missing) {
        snprintf(failure, sizeof failure, "the HTTP server library %s has no %s (an older libmicrohttpd?)", IP_MHD_SONAME, missing);
        dlclose(library);
        return;
    }
    ip_mhd = table;  /* the library stays open for the process's life: its threads run its code */
}

int ip_mhd_open(char *error, size_t error_size) {
    pthread_once(&once, open_library);
    if (failure[0] == 0) return 0;
    snprintf(error, error_size, "%s", failure);
    return -1;
}
