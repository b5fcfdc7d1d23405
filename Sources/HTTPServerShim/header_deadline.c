#define _GNU_SOURCE
#include "header_deadline.h"
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

/* One connection: its descriptor and when its head is due. */
struct ip_deadline_connection {
    struct ip_deadline_connection *previous, *next;
    int fd;
    int waiting_for_head;       /* between connecting (or the previous answer) and a complete request head */
    int shut;                   /* the watchdog has shut it down */
    uint64_t deadline_ms;       /* when the head must be complete (monotonic clock) */
};

static uint64_t monotonic_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

void ip_header_deadline_init(ip_header_deadline *d, unsigned header_ms, unsigned keep_alive_ms) {
    d->header_ms = header_ms;
    d->keep_alive_ms = keep_alive_ms;
    d->connections = NULL;
    d->running = 0;
    d->stopping = 0;
    d->shut_count = 0;
    pthread_mutex_init(&d->lock, NULL);
    pthread_condattr_t clock;
    pthread_condattr_init(&clock);
    pthread_condattr_setclock(&clock, CLOCK_MONOTONIC);
    pthread_cond_init(&d->wake, &clock);
    pthread_condattr_destroy(&clock);
}

/* Wakes a few times per second and shuts down every connection whose request head is overdue: MHD then reads
 * end-of-stream and closes it itself. No answer is written: MHD owns the socket's output. */
static void *watchdog(void *argument) {
    ip_header_deadline *d = argument;
    unsigned period = d->header_ms / 4;
    if (period < 50) period = 50;
    if (period > 500) period = 500;
    pthread_mutex_lock(&d->lock);
    while (!d->stopping) {
        struct timespec wake;
        clock_gettime(CLOCK_MONOTONIC, &wake);
        wake.tv_nsec += (long)period * 1000000L;
        wake.tv_sec += wake.tv_nsec / 1000000000L;
        wake.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&d->wake, &d->lock, &wake);
        if (d->stopping) break;
        uint64_t now = monotonic_ms();
        for (ip_deadline_connection *c = d->connections; c; c = c->next) {
            if (c->waiting_for_head && !c->shut && now >= c->deadline_ms) {
                shutdown(c->fd, SHUT_RDWR);
                c->shut = 1;
                d->shut_count++;
            }
        }
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

int ip_header_deadline_start(ip_header_deadline *d) {
    if (pthread_create(&d->watchdog, NULL, watchdog, d) != 0) return -1;
    d->running = 1;
    return 0;
}

void ip_header_deadline_stop(ip_header_deadline *d) {
    if (!d->running) return;
    pthread_mutex_lock(&d->lock);
    d->stopping = 1;
    pthread_cond_signal(&d->wake);
    pthread_mutex_unlock(&d->lock);
    pthread_join(d->watchdog, NULL);
    d->running = 0;
}

void ip_header_deadline_destroy(ip_header_deadline *d) {
    pthread_cond_destroy(&d->wake);
    pthread_mutex_destroy(&d->lock);
}

static ip_deadline_connection *record(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = ip_mhd.get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

void ip_header_deadline_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                               enum MHD_ConnectionNotificationCode code) {
    ip_header_deadline *d = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = ip_mhd.get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        ip_deadline_connection *c = calloc(1, sizeof *c);
        if (!c || !info) {
            free(c);
            *socket_context = NULL;
            return;
        }
        c->fd = info->connect_fd;
        c->waiting_for_head = 1;
        c->deadline_ms = monotonic_ms() + d->header_ms;
        pthread_mutex_lock(&d->lock);
        c->next = d->connections;
        if (d->connections) d->connections->previous = c;
        d->connections = c;
        pthread_mutex_unlock(&d->lock);
        *socket_context = c;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        ip_deadline_connection *c = *socket_context;
        if (!c) return;
        pthread_mutex_lock(&d->lock);
        if (c->previous) c->previous->next = c->next; else d->connections = c->next;
        if (c->next) c->next->previous = c->previous;
        pthread_mutex_unlock(&d->lock);
        *socket_context = NULL;
        free(c);
    }
}

void ip_header_deadline_head_arrived(ip_header_deadline *d, struct MHD_Connection *connection) {
    ip_deadline_connection *c = record(connection);
    if (!c) return;
    pthread_mutex_lock(&d->lock);
    c->waiting_for_head = 0;
    pthread_mutex_unlock(&d->lock);
}

void ip_header_deadline_head_due_again(ip_header_deadline *d, struct MHD_Connection *connection) {
    ip_deadline_connection *c = connection ? record(connection) : NULL;
    if (!c) return;
    pthread_mutex_lock(&d->lock);
    c->waiting_for_head = 1;
    c->deadline_ms = monotonic_ms() + d->keep_alive_ms;
    pthread_mutex_unlock(&d->lock);
}

unsigned long ip_header_deadline_shut_count(ip_header_deadline *d) {
    pthread_mutex_lock(&d->lock);
    unsigned long count = d->shut_count;
    pthread_mutex_unlock(&d->lock);
    return count;
}
