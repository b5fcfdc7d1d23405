/* The total deadline for a request head, beside libmicrohttpd (private to the shim). MHD's own timeout is an idle
 * timeout: a client sending a byte a second resets it and holds a connection for ever. This keeps every
 * connection's descriptor and deadline (MHD's connection notifications) and a watchdog thread shuts down (never
 * closes: the descriptor stays MHD's) a connection whose head is overdue; MHD then reads end-of-stream and closes
 * it itself. MHD sends the CLOSED notification before it closes the descriptor, and that notification and the
 * watchdog hold one lock, so a shutdown never reaches a reused descriptor. */
#ifndef IMAGEPIPE_HEADER_DEADLINE_H
#define IMAGEPIPE_HEADER_DEADLINE_H

#include "mhd_library.h"
#include <pthread.h>
#include <stdint.h>

typedef struct ip_deadline_connection ip_deadline_connection;

typedef struct ip_header_deadline {
    unsigned header_ms;         /* a head must be complete this long after connecting */
    unsigned keep_alive_ms;     /* ... or this long after the previous answer on a kept-alive connection */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    ip_deadline_connection *connections;
    pthread_t watchdog;
    int running;
    int stopping;               /* guarded by lock */
    unsigned long shut_count;   /* connections shut for an overdue head; guarded by lock */
} ip_header_deadline;

/* Sets up the locks (before MHD starts: its notifications use them). */
void ip_header_deadline_init(ip_header_deadline *deadline, unsigned header_ms, unsigned keep_alive_ms);
/* Starts the watchdog; 0 on success. */
int ip_header_deadline_start(ip_header_deadline *deadline);
/* Stops the watchdog (before MHD stops) and frees the locks (after it): call stop, MHD_stop_daemon, destroy. */
void ip_header_deadline_stop(ip_header_deadline *deadline);
void ip_header_deadline_destroy(ip_header_deadline *deadline);

/* MHD_OPTION_NOTIFY_CONNECTION's callback; cls is the ip_header_deadline. */
void ip_header_deadline_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                               enum MHD_ConnectionNotificationCode code);
/* The head is complete (the access handler's first call): the deadline no longer applies. */
void ip_header_deadline_head_arrived(ip_header_deadline *deadline, struct MHD_Connection *connection);
/* An answer was sent and the connection may carry another request: its head is due within the keep-alive time. */
void ip_header_deadline_head_due_again(ip_header_deadline *deadline, struct MHD_Connection *connection);
unsigned long ip_header_deadline_shut_count(ip_header_deadline *deadline);

#endif
