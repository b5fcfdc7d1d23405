/* libmicrohttpd, opened by the first ip_httpd_start rather than linked into the binary.
 *
 * Why: linked, libmicrohttpd and the TLS stack it brings (gnutls, nettle, hogweed, gmp, p11-kit, libtasn1, libidn2,
 * libunistring, libffi) were mapped and relocated by every imagepipe command — about 1.4 ms of each start on this
 * project's machine, for a server that only `serve` runs. The header still gives the types and constants; the
 * calls go through this table, typed by the header's own declarations, so a mismatch fails to compile.
 * scripts/make-deb adds the library to the package's dependencies (dpkg-shlibdeps cannot see a dlopen). */
#ifndef IMAGEPIPE_MHD_LIBRARY_H
#define IMAGEPIPE_MHD_LIBRARY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* The run-time name of the library this header describes (Debian's libmicrohttpd12). */
#define IP_MHD_SONAME "libmicrohttpd.so.12"

struct ip_mhd_library {
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_quiesce_daemon) *quiesce_daemon;
    __typeof__(MHD_get_daemon_info) *get_daemon_info;
    __typeof__(MHD_get_connection_info) *get_connection_info;
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
    __typeof__(MHD_suspend_connection) *suspend_connection;
    __typeof__(MHD_resume_connection) *resume_connection;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_create_response_from_callback) *create_response_from_callback;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
};

/* Filled by ip_mhd_open; read only after it has succeeded. */
extern struct ip_mhd_library ip_mhd;

/* Opens the library once per process (thread-safe). 0 on success; otherwise -1 with the reason in error. */
int ip_mhd_open(char *error, size_t error_size);

#endif
