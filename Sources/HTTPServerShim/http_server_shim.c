#define _GNU_SOURCE
#include "http_server_shim.h"
#include "header_deadline.h"
#include <arpa/inet.h>
#include <errno.h>
#include "mhd_library.h"
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct ip_httpd {
    struct MHD_Daemon *daemon;
    ip_httpd_handler handler;
    void *context;
    uint16_t port;
    /* Requests begun and not yet completed by MHD (their answer sent, or the connection gone). */
    unsigned active;
    /* Every request MHD has not completed, so a stop can answer the ones still waiting (MHD aborts the process
     * when stopped with a suspended connection). Guarded by lock. */
    pthread_mutex_t lock;
    struct ip_httpd_request *open;
    /* The total deadline for each request head (header_deadline.h). */
    ip_header_deadline deadline;
};

/* A request record has two owners: MHD, until its completion callback, and the Swift handler, from the handler
 * call until its own ip_httpd_respond. It is freed when both have let go, so an answer that arrives after a stop
 * answered the request (or after the client left) touches live memory and is dropped. */
struct ip_httpd_request {
    ip_httpd *server;
    struct ip_httpd_request *previous, *next;
    int mhd_done;               /* MHD's completion callback has run */
    int handler_owns;           /* the handler was called and has not yet called ip_httpd_respond */
    struct MHD_Connection *connection;
    const char *method;
    const char *path;
    const char *version;
    pthread_mutex_t lock;
    int started;                /* the handler has been called */
    int in_handler;             /* the handler call is running */
    int suspended;              /* MHD_suspend_connection was called and not yet resumed */
    int answered;               /* ip_httpd_respond was called */
    struct MHD_Response *pending;
    unsigned pending_status;
};

static enum MHD_Result queue_pending(ip_httpd_request *r) {
    enum MHD_Result result = ip_mhd.queue_response(r->connection, r->pending_status, r->pending);
    ip_mhd.destroy_response(r->pending);
    r->pending = NULL;
    return result;
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                      const char *version, const char *upload_data, size_t *upload_data_size,
                                      void **con_cls) {
    ip_httpd *server = cls;
    (void)upload_data;
    ip_httpd_request *r = *con_cls;
    if (!r) {
        /* The first call comes with the headers only: MHD's protocol is to answer from a later call (answering
         * now makes it close the connection after the response, since a body might still be on its way). */
        ip_header_deadline_head_arrived(&server->deadline, connection);
        r = calloc(1, sizeof *r);
        if (!r) return MHD_NO;
        pthread_mutex_init(&r->lock, NULL);
        r->server = server;
        r->connection = connection;
        r->method = method;
        r->path = url;
        r->version = version;
        *con_cls = r;
        pthread_mutex_lock(&server->lock);
        r->next = server->open;
        if (server->open) server->open->previous = r;
        server->open = r;
        pthread_mutex_unlock(&server->lock);
        __atomic_add_fetch(&server->active, 1, __ATOMIC_ACQ_REL);
        return MHD_YES;
    }
    if (*upload_data_size > 0 || r->started) {
        /* Upload data (ignored: GET and HEAD only), or a call after a resume (the answer is pending). */
        *upload_data_size = 0;
        pthread_mutex_lock(&r->lock);
        enum MHD_Result result = MHD_YES;
        if (r->pending) result = queue_pending(r);
        pthread_mutex_unlock(&r->lock);
        return result;
    }
    pthread_mutex_lock(&r->lock);
    r->started = 1;
    r->in_handler = 1;
    r->handler_owns = 1;
    pthread_mutex_unlock(&r->lock);
    server->handler(server->context, r);
    pthread_mutex_lock(&r->lock);
    r->in_handler = 0;
    enum MHD_Result result = MHD_YES;
    if (r->pending) {
        result = queue_pending(r);
    } else if (!r->answered) {
        ip_mhd.suspend_connection(connection);
        r->suspended = 1;
    }
    pthread_mutex_unlock(&r->lock);
    return result;
}

/* Leaves the path as sent: signatures are computed over the percent-encoded form. */
static size_t keep_escaped(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls;
    (void)connection;
    return strlen(text);
}

/* Frees the record once neither MHD nor the handler holds it; called with r->lock held, which it releases. */
static void release_locked(ip_httpd_request *r) {
    int free_it = r->mhd_done && !r->handler_owns;
    pthread_mutex_unlock(&r->lock);
    if (!free_it) return;
    if (r->pending) ip_mhd.destroy_response(r->pending);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

static void completed(void *cls, struct MHD_Connection *connection, void **con_cls, enum MHD_RequestTerminationCode code) {
    ip_httpd *server = cls;
    if (code == MHD_REQUEST_TERMINATED_COMPLETED_OK) ip_header_deadline_head_due_again(&server->deadline, connection);
    ip_httpd_request *r = *con_cls;
    if (!r) return;
    *con_cls = NULL;
    pthread_mutex_lock(&server->lock);
    if (r->previous) r->previous->next = r->next; else server->open = r->next;
    if (r->next) r->next->previous = r->previous;
    r->previous = r->next = NULL;
    pthread_mutex_unlock(&server->lock);
    __atomic_sub_fetch(&server->active, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_lock(&r->lock);
    r->mhd_done = 1;
    r->connection = NULL;
    if (r->pending) {
        ip_mhd.destroy_response(r->pending);
        r->pending = NULL;
    }
    release_locked(r);
}

static void destroy_locks(ip_httpd *server) {
    ip_header_deadline_destroy(&server->deadline);
    pthread_mutex_destroy(&server->lock);
}

ip_httpd *ip_httpd_start(const char *address, uint16_t port, const ip_httpd_settings *settings,
                         ip_httpd_handler handler, void *context, char *error, size_t error_size) {
    struct sockaddr_in in4;
    memset(&in4, 0, sizeof in4);
    in4.sin_family = AF_INET;
    in4.sin_port = htons(port);
    if (inet_pton(AF_INET, address, &in4.sin_addr) != 1) {
        snprintf(error, error_size, "'%s' is not an IPv4 address (such as 127.0.0.1 or 0.0.0.0)", address);
        return NULL;
    }
    if (ip_mhd_open(error, error_size) != 0) return NULL;
    ip_httpd *server = calloc(1, sizeof *server);
    if (!server) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    server->handler = handler;
    server->context = context;
    pthread_mutex_init(&server->lock, NULL);
    unsigned header_seconds = settings->header_timeout_seconds ? settings->header_timeout_seconds : 10;
    unsigned keep_alive_seconds = settings->idle_timeout_seconds > header_seconds ? settings->idle_timeout_seconds : header_seconds;
    ip_header_deadline_init(&server->deadline, header_seconds * 1000u, keep_alive_seconds * 1000u);
    unsigned threads = settings->threads;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC;
    server->daemon = ip_mhd.start_daemon(
        flags, port, NULL, NULL, access_handler, server,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&in4,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)(threads > 0 ? threads : 1),
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)settings->connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)settings->per_client_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)settings->idle_timeout_seconds,
        MHD_OPTION_NOTIFY_COMPLETED, completed, server,
        MHD_OPTION_NOTIFY_CONNECTION, ip_header_deadline_notify, &server->deadline,
        MHD_OPTION_UNESCAPE_CALLBACK, keep_escaped, NULL,
        /* Last, since it ends the list when not asked for. 1: SO_REUSEPORT, only with --reuse-port: otherwise a
         * second server on the same port would take a share of the connections silently. Without the option MHD
         * sets SO_REUSEADDR only, and bind fails while another socket listens there. */
        settings->reuse_port ? MHD_OPTION_LISTENING_ADDRESS_REUSE : MHD_OPTION_END, (unsigned int)1,
        MHD_OPTION_END);
    if (!server->daemon) {
        int cause = errno;
        if (cause == EADDRINUSE) {
            snprintf(error, error_size, "cannot listen on %s:%u: the port is in use (another server listens there; "
                     "--reuse-port shares it deliberately)", address, (unsigned)port);
        } else {
            snprintf(error, error_size, "cannot listen on %s:%u (%s)", address, (unsigned)port,
                     cause ? strerror(cause) : "not an address of this machine");
        }
        destroy_locks(server);
        free(server);
        return NULL;
    }
    if (ip_header_deadline_start(&server->deadline) != 0) {
        snprintf(error, error_size, "cannot start the header-deadline thread");
        ip_mhd.stop_daemon(server->daemon);
        destroy_locks(server);
        free(server);
        return NULL;
    }
    const union MHD_DaemonInfo *info = ip_mhd.get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    server->port = info ? info->port : port;
    return server;
}

uint16_t ip_httpd_port(const ip_httpd *server) { return server->port; }

unsigned ip_httpd_active(const ip_httpd *server) { return __atomic_load_n(&server->active, __ATOMIC_ACQUIRE); }

void ip_httpd_quiesce(ip_httpd *server) {
    MHD_socket listener = ip_mhd.quiesce_daemon(server->daemon);
    if (listener != MHD_INVALID_SOCKET) close(listener);
}

void ip_httpd_stop(ip_httpd *server) {
    ip_header_deadline_stop(&server->deadline);
    ip_mhd.stop_daemon(server->daemon);
    destroy_locks(server);
    free(server);
}

unsigned long ip_httpd_overdue_heads(ip_httpd *server) { return ip_header_deadline_shut_count(&server->deadline); }

const char *ip_httpd_method(const ip_httpd_request *request) { return request->method; }
const char *ip_httpd_path(const ip_httpd_request *request) { return request->path; }
const char *ip_httpd_version(const ip_httpd_request *request) { return request->version ? request->version : ""; }

const char *ip_httpd_header(const ip_httpd_request *request, const char *name) {
    return ip_mhd.lookup_connection_value(request->connection, MHD_HEADER_KIND, name);
}

void ip_httpd_client(const ip_httpd_request *request, char *buffer, size_t size) {
    const union MHD_ConnectionInfo *info = ip_mhd.get_connection_info(request->connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    buffer[0] = 0;
    if (!info || !info->client_addr) return;
    if (info->client_addr->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)info->client_addr)->sin_addr, buffer, (socklen_t)size);
    } else if (info->client_addr->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)info->client_addr)->sin6_addr, buffer, (socklen_t)size);
    }
}

/* Queues an answer unless one was given; resumes the connection if the handler had suspended it. Called with
 * r->lock held. 0 when this call answered. */
static int answer_locked(ip_httpd_request *r, struct MHD_Response *response, unsigned status) {
    if (r->answered || r->mhd_done) {
        ip_mhd.destroy_response(response);
        return -1;
    }
    r->answered = 1;
    r->pending = response;
    r->pending_status = status;
    if (r->suspended) {
        r->suspended = 0;
        ip_mhd.resume_connection(r->connection);
    }
    return 0;
}

/* Never called: MHD sends no body for a 304 (it counts the body as sent). */
static ssize_t no_body(void *cls, uint64_t position, char *buffer, size_t max) {
    (void)cls; (void)position; (void)buffer; (void)max;
    return MHD_CONTENT_READER_END_WITH_ERROR;
}

static struct MHD_Response *make_response(unsigned status, const char *const *names, const char *const *values,
                                          size_t header_count, const uint8_t *body, size_t size, int close_connection) {
    /* A 304 may carry Content-Length only if it equals the 200's (RFC 9110 8.6), and MHD 0.9.75 always writes one
     * for a sized response (and chunked for an unsized one): so a 304's response has the 200 body's size and no
     * bytes. */
    struct MHD_Response *response = status == 304
        ? ip_mhd.create_response_from_callback(size, 1024, no_body, NULL, NULL)
        : ip_mhd.create_response_from_buffer(size, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!response) return NULL;
    for (size_t i = 0; i < header_count; i++) ip_mhd.add_response_header(response, names[i], values[i]);
    if (close_connection) ip_mhd.add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close");
    return response;
}

int ip_httpd_respond(ip_httpd_request *r, unsigned status, const char *const *names, const char *const *values,
                     size_t header_count, const uint8_t *body, size_t size, int close_connection) {
    struct MHD_Response *response = make_response(status, names, values, header_count, body, size, close_connection);
    pthread_mutex_lock(&r->lock);
    int result = response ? answer_locked(r, response, status) : -1;
    r->handler_owns = 0;
    release_locked(r);
    return result;
}

unsigned ip_httpd_answer_waiting(ip_httpd *server, unsigned status, const char *const *names, const char *const *values,
                                 size_t header_count, const uint8_t *body, size_t size) {
    unsigned answered = 0;
    pthread_mutex_lock(&server->lock);
    for (ip_httpd_request *r = server->open; r; r = r->next) {
        pthread_mutex_lock(&r->lock);
        /* Only requests the handler holds: one not yet handed over is answered by the handler itself. */
        if (r->handler_owns && !r->answered) {
            struct MHD_Response *response = make_response(status, names, values, header_count, body, size, 1);
            if (response && answer_locked(r, response, status) == 0) answered++;
        }
        pthread_mutex_unlock(&r->lock);
    }
    pthread_mutex_unlock(&server->lock);
    return answered;
}
