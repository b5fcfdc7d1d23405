/* What the S3 loader needs from libcurl beyond the shared typed wrappers (CCurl): one share for the process, so
 * loads on different threads reuse DNS answers and TLS sessions to the store (a full TLS handshake per object would
 * dominate small reads), and the progress callback through which a cancel stops a transfer that is waiting for
 * bytes. Static inline: the Swift module that imports this header compiles them.
 *
 * Not the connection cache (CURL_LOCK_DATA_CONNECT): libcurl 7.88 does not make it safe to share between
 * concurrent threads (its maintainers: sharing the pool between threads "requires more work to be properly
 * functional"), and with it, under the full test suite's load, a GET missed an object the store held — a mixed-up
 * answer, which for a loader could be another object's bytes. Each transfer has its own connection; TLS resumes
 * from the shared session cache. */
#ifndef IMAGEPIPE_CS3CURL_SHIM_H
#define IMAGEPIPE_CS3CURL_SHIM_H

#include <curl/curl.h>
#include <pthread.h>

/* One lock per kind of shared data (libcurl asks for them by curl_lock_data). */
static inline pthread_mutex_t *ip_s3_share_lock_for(curl_lock_data data) {
    static pthread_mutex_t locks[CURL_LOCK_DATA_LAST] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
        PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
        PTHREAD_MUTEX_INITIALIZER};
    return &locks[(unsigned)data < CURL_LOCK_DATA_LAST ? (unsigned)data : 0];
}

static inline void ip_s3_share_lock(CURL *handle, curl_lock_data data, curl_lock_access access, void *user) {
    (void)handle; (void)access; (void)user;
    pthread_mutex_lock(ip_s3_share_lock_for(data));
}

static inline void ip_s3_share_unlock(CURL *handle, curl_lock_data data, void *user) {
    (void)handle; (void)user;
    pthread_mutex_unlock(ip_s3_share_lock_for(data));
}

/* The process's share (connections, DNS, TLS sessions), made once; NULL when libcurl cannot make one (the loads
 * then work unshared). Never freed: plugins are never unloaded. Call it from one Swift file only: a static inline
 * function's statics are per object file when the module is not compiled whole. */
/* Function-local statics: the Swift importer emits those with the function, not file-scope ones. */
static inline CURLSH **ip_s3_share_slot(void) {
    static CURLSH *slot;
    return &slot;
}

static inline void ip_s3_share_make(void) {
    CURLSH *share = curl_share_init();
    if (!share) return;
    if (curl_share_setopt(share, CURLSHOPT_LOCKFUNC, ip_s3_share_lock) != CURLSHE_OK ||
        curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, ip_s3_share_unlock) != CURLSHE_OK ||
        curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) != CURLSHE_OK ||
        curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK) {
        curl_share_cleanup(share);
        return;
    }
    *ip_s3_share_slot() = share;
}

static inline CURLSH *ip_s3_share(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ip_s3_share_make);
    return *ip_s3_share_slot();
}

static inline CURLcode ip_s3_easy_set_share(CURL *easy, CURLSH *share) {
    return curl_easy_setopt(easy, CURLOPT_SHARE, share);
}

/* CURLOPT_XFERINFOFUNCTION with progress on: libcurl calls it often while a transfer runs (also while it waits for
 * bytes), and a non-zero return aborts the transfer (CURLE_ABORTED_BY_CALLBACK). */
static inline CURLcode ip_s3_easy_set_progress(CURL *easy, curl_xferinfo_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, callback);
    if (code == CURLE_OK) code = curl_easy_setopt(easy, CURLOPT_XFERINFODATA, context);
    if (code == CURLE_OK) code = curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
    return code;
}

#endif
