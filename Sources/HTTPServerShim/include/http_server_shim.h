/* A small C layer over libmicrohttpd for `imagepipe serve`: MHD's start function is variadic (Swift cannot call it)
 * and its suspend/resume protocol has an ordering rule (suspend inside the handler, resume from anywhere, answer on
 * the next call) that is easier to keep in one place. Swift sees a request, answers it at once or later, from any
 * thread, exactly once. */
#ifndef IMAGEPIPE_HTTP_SERVER_SHIM_H
#define IMAGEPIPE_HTTP_SERVER_SHIM_H

#include <stddef.h>
#include <stdint.h>

typedef struct ip_httpd ip_httpd;
typedef struct ip_httpd_request ip_httpd_request;

/* Called once per request on an MHD thread. The handler answers with ip_httpd_respond, now or later from any
 * thread, exactly once; the request and the strings it hands out stay valid until then. */
typedef void (*ip_httpd_handler)(void *context, ip_httpd_request *request);

typedef struct ip_httpd_settings {
    unsigned threads;               /* polling threads */
    unsigned connection_limit;      /* connections at once, all clients */
    unsigned per_client_limit;      /* connections at once from one client address (0 = no limit) */
    unsigned idle_timeout_seconds;  /* a connection with no traffic for this long is closed (0 = never) */
    unsigned header_timeout_seconds;/* a request head must be complete this long after the connection opens, or
                                     * max(this, idle) after the previous answer on it; else the connection is
                                     * shut (0 = 10 s). MHD's own timeout is idle only: a byte a second resets it. */
    int reuse_port;                 /* SO_REUSEPORT: share the port with other sockets that ask for it */
} ip_httpd_settings;

/* Starts listening on address:port (port 0 = any free port). NULL on failure, with the reason in error. */
ip_httpd *ip_httpd_start(const char *address, uint16_t port, const ip_httpd_settings *settings,
                         ip_httpd_handler handler, void *context, char *error, size_t error_size);
/* The port actually bound. */
uint16_t ip_httpd_port(const ip_httpd *server);
/* Requests begun and not completed: an answer counts until MHD has sent it (or its connection is gone), which is
 * what a graceful stop must wait for — a handler that has called respond() has not yet been answered. */
unsigned ip_httpd_active(const ip_httpd *server);
/* Stops accepting new connections (existing ones are served to the end). */
void ip_httpd_quiesce(ip_httpd *server);
/* Answers every request the handler holds and has not answered (status, headers, body; the connection is
 * closed after it), so that a stop leaves no connection suspended: MHD aborts the process when stopped with one.
 * A later ip_httpd_respond for such a request is dropped. Returns how many were answered. */
unsigned ip_httpd_answer_waiting(ip_httpd *server, unsigned status, const char *const *names, const char *const *values,
                                 size_t header_count, const uint8_t *body, size_t size);
/* Connections shut because their request head was not complete in time (since start). */
unsigned long ip_httpd_overdue_heads(ip_httpd *server);
/* Stops the server and frees it; no handler call is running or will run afterwards. Call it only when no
 * request is suspended (after ip_httpd_answer_waiting and once ip_httpd_active is 0). */
void ip_httpd_stop(ip_httpd *server);

const char *ip_httpd_method(const ip_httpd_request *request);
/* The path as sent, percent escapes kept (what a signature covers). */
const char *ip_httpd_path(const ip_httpd_request *request);
/* "HTTP/1.1", "HTTP/1.0", ... Only during the handler call. */
const char *ip_httpd_version(const ip_httpd_request *request);
/* A request header (case-insensitive name), or NULL. Only during the handler call. */
const char *ip_httpd_header(const ip_httpd_request *request, const char *name);
/* The client's address as text ("127.0.0.1"), during the handler call. */
void ip_httpd_client(const ip_httpd_request *request, char *buffer, size_t size);

/* Answers the request: status, headers (names[i]: values[i]), body (copied). For a 304, `body` is the 200's
 * representation: only its length is sent (as Content-Length), never its bytes. Called exactly once per handler
 * call, even when the request was already answered (by ip_httpd_answer_waiting) or its client left: that call
 * is what lets the request's memory go. Returns 0 when this call answered it. */
int ip_httpd_respond(ip_httpd_request *request, unsigned status, const char *const *names, const char *const *values,
                     size_t header_count, const uint8_t *body, size_t size, int close_connection);

#endif
