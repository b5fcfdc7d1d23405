/* RedisCache — a shared cache tier for several imagepipe processes, on hiredis (Debian's libhiredis-dev).
 *
 * Configuration string (ip_cache.open): "redis://HOST[:PORT][/DB] [ttl=SECONDS] [max-entry=BYTES]
 * [timeout-ms=MS] [ns=PREFIX] [password=SECRET]" or "unix:///path/to/socket ...". Defaults: 127.0.0.1:6379/0,
 * ttl 86400 (0 = no expiry), max-entry 8 MiB, timeout 250 ms, ns "imagepipe".
 *
 * Why these choices:
 * - Fail-open: a cache must never fail or slow a render. Every command has a short timeout; after a failure the
 *   store is "down" for one second (then one connection attempt decides), during which calls fail at once without
 *   touching the network, and the transition up→down is logged once (down→up too), not once per request.
 * - Thread-safe: a hiredis context is not, so a small pool of contexts (one per concurrent caller, at most
 *   POOL_MAX; more callers wait) behind a mutex; a context that failed is dropped, never reused.
 * - Keys are namespaced ("ns:" + the host's key) so clear() removes only this tier's entries (SCAN + UNLINK in
 *   batches, never FLUSHDB) and several services can share one Redis.
 * - Entries larger than max-entry are not stored (put answers OK): a shared tier is for thumbnails, and one huge
 *   original would evict thousands of them.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <hiredis/hiredis.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "imagepipe/imagepipe.h"

#define PLUGIN_ID "org.imagepipe.cache.redis"
#define POOL_MAX 16

typedef struct redis_config {
    char host[256];
    char socket_path[512];
    int port;
    int db;
    long long ttl;
    size_t max_entry;
    int timeout_ms;
    char ns[128];
    char password[256];
} redis_config;

struct ip_cache_store {
    redis_config config;
    pthread_mutex_t lock;
    pthread_cond_t available;
    redisContext *idle[POOL_MAX];
    int idle_count;
    int open_count;
    int down;                 /* 1 while the server is considered unreachable */
    double retry_at;          /* monotonic seconds: when a down store tries again */
    uint64_t hits, misses, errors;
};

static const ip_host *the_host;

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void set_message(ip_message message, const char *text) {
    if (message.capacity == 0 || !message.buffer) return;
    snprintf(message.buffer, message.capacity, "%s", text);
}

static void log_line(ip_log_level level, const char *text) {
    if (the_host && the_host->log) the_host->log(the_host, level, text);
}

/* Parses the configuration; returns 0 on success, else writes why. */
static int parse_config(const char *text, redis_config *config, char *why, size_t why_size) {
    memset(config, 0, sizeof *config);
    snprintf(config->host, sizeof config->host, "127.0.0.1");
    config->port = 6379;
    config->ttl = 86400;
    config->max_entry = 8u << 20;
    config->timeout_ms = 250;
    snprintf(config->ns, sizeof config->ns, "imagepipe");
    if (!text) return 0;
    char *copy = strdup(text), *saveptr = NULL;
    if (!copy) { snprintf(why, why_size, "out of memory"); return -1; }
    int failed = 0;
    for (char *word = strtok_r(copy, " \t", &saveptr); word && !failed; word = strtok_r(NULL, " \t", &saveptr)) {
        char *end = NULL;
        if (strncmp(word, "redis://", 8) == 0) {
            char *rest = word + 8, *slash = strchr(rest, '/'), *colon;
            if (slash) {
                config->db = (int)strtol(slash + 1, &end, 10);
                if (*end || config->db < 0) { snprintf(why, why_size, "bad database number in '%s'", word); failed = 1; }
                *slash = 0;
            }
            if ((colon = strrchr(rest, ':'))) {
                config->port = (int)strtol(colon + 1, &end, 10);
                if (*end || config->port <= 0 || config->port > 65535) { snprintf(why, why_size, "bad port in '%s'", word); failed = 1; }
                *colon = 0;
            }
            if (*rest) snprintf(config->host, sizeof config->host, "%s", rest);
        } else if (strncmp(word, "unix://", 7) == 0) {
            snprintf(config->socket_path, sizeof config->socket_path, "%s", word + 7);
        } else if (strncmp(word, "ttl=", 4) == 0) {
            config->ttl = strtoll(word + 4, &end, 10);
            if (*end || config->ttl < 0) { snprintf(why, why_size, "ttl must be seconds >= 0, not '%s'", word + 4); failed = 1; }
        } else if (strncmp(word, "max-entry=", 10) == 0) {
            long long v = strtoll(word + 10, &end, 10);
            if (*end || v <= 0) { snprintf(why, why_size, "max-entry must be bytes > 0, not '%s'", word + 10); failed = 1; }
            config->max_entry = (size_t)v;
        } else if (strncmp(word, "timeout-ms=", 11) == 0) {
            long v = strtol(word + 11, &end, 10);
            if (*end || v <= 0 || v > 60000) { snprintf(why, why_size, "timeout-ms must be 1...60000, not '%s'", word + 11); failed = 1; }
            config->timeout_ms = (int)v;
        } else if (strncmp(word, "ns=", 3) == 0) {
            snprintf(config->ns, sizeof config->ns, "%s", word + 3);
        } else if (strncmp(word, "password=", 9) == 0) {
            snprintf(config->password, sizeof config->password, "%s", word + 9);
        } else {
            snprintf(why, why_size, "unknown setting '%s' (expected redis://HOST:PORT/DB, unix://PATH, ttl=, max-entry=, timeout-ms=, ns=, password=)", word);
            failed = 1;
        }
    }
    free(copy);
    return failed ? -1 : 0;
}

/* A new connection, authenticated and on the right database, or NULL (why written). */
static redisContext *connect_to(const redis_config *config, char *why, size_t why_size) {
    struct timeval timeout = {config->timeout_ms / 1000, (config->timeout_ms % 1000) * 1000};
    redisContext *c = config->socket_path[0] ? redisConnectUnixWithTimeout(config->socket_path, timeout)
                                             : redisConnectWithTimeout(config->host, config->port, timeout);
    if (!c || c->err) {
        snprintf(why, why_size, "cannot connect to %s:%d: %s", config->socket_path[0] ? config->socket_path : config->host,
                 config->port, c ? c->errstr : "out of memory");
        if (c) redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, timeout);
    redisReply *reply = NULL;
    if (config->password[0]) {
        reply = redisCommand(c, "AUTH %s", config->password);
        if (!reply || reply->type == REDIS_REPLY_ERROR) goto failed;
        freeReplyObject(reply);
    }
    if (config->db != 0) {
        reply = redisCommand(c, "SELECT %d", config->db);
        if (!reply || reply->type == REDIS_REPLY_ERROR) goto failed;
        freeReplyObject(reply);
    }
    return c;
failed:
    snprintf(why, why_size, "redis refused the session: %s", reply ? reply->str : c->errstr);
    if (reply) freeReplyObject(reply);
    redisFree(c);
    return NULL;
}

/* Takes a connection from the pool (waiting while POOL_MAX are in use), or NULL while the store is down. */
static redisContext *take(ip_cache_store *store, ip_message message) {
    char why[512] = "";
    pthread_mutex_lock(&store->lock);
    for (;;) {
        if (store->down && now_seconds() < store->retry_at) {
            pthread_mutex_unlock(&store->lock);
            set_message(message, "redis is unreachable (retrying every second)");
            return NULL;
        }
        if (store->idle_count > 0) {
            redisContext *c = store->idle[--store->idle_count];
            pthread_mutex_unlock(&store->lock);
            return c;
        }
        if (store->open_count < POOL_MAX) break;
        pthread_cond_wait(&store->available, &store->lock);
    }
    store->open_count++;
    pthread_mutex_unlock(&store->lock);
    redisContext *c = connect_to(&store->config, why, sizeof why);
    pthread_mutex_lock(&store->lock);
    if (!c) {
        store->open_count--;
        store->errors++;
        int was_up = !store->down;
        store->down = 1;
        store->retry_at = now_seconds() + 1.0;
        pthread_cond_signal(&store->available);
        pthread_mutex_unlock(&store->lock);
        if (was_up) {
            char line[640];
            snprintf(line, sizeof line, "%s; the cache tier is skipped until it answers again", why);
            log_line(IP_LOG_WARNING, line);
        }
        set_message(message, why);
        return NULL;
    }
    int was_down = store->down;
    store->down = 0;
    pthread_mutex_unlock(&store->lock);
    if (was_down) log_line(IP_LOG_INFO, "redis answers again; the cache tier is back");
    return c;
}

/* Returns a connection to the pool, or drops it when it failed (the next call reconnects). */
static void give_back(ip_cache_store *store, redisContext *c, int failed) {
    pthread_mutex_lock(&store->lock);
    if (failed || c->err) {
        redisFree(c);
        store->open_count--;
        store->errors++;
        int was_up = !store->down;
        store->down = 1;
        store->retry_at = now_seconds() + 1.0;
        pthread_mutex_unlock(&store->lock);
        if (was_up) log_line(IP_LOG_WARNING, "redis stopped answering; the cache tier is skipped until it answers again");
        pthread_mutex_lock(&store->lock);
    } else {
        store->idle[store->idle_count++] = c;
    }
    pthread_cond_signal(&store->available);
    pthread_mutex_unlock(&store->lock);
}

/* "ns:" + key, or NULL on no memory. */
static char *full_key(const ip_cache_store *store, const char *key, size_t *length) {
    size_t ns = strlen(store->config.ns), k = strlen(key);
    char *text = malloc(ns + 1 + k + 1);
    if (!text) return NULL;
    memcpy(text, store->config.ns, ns);
    text[ns] = ':';
    memcpy(text + ns + 1, key, k + 1);
    *length = ns + 1 + k;
    return text;
}

static ip_status cache_open(const char *configuration, ip_cache_store **out, ip_message message) {
    char why[512] = "";
    ip_cache_store *store = calloc(1, sizeof *store);
    if (!store) { set_message(message, "out of memory"); return IP_STATUS_NO_MEMORY; }
    if (parse_config(configuration, &store->config, why, sizeof why) != 0) {
        free(store);
        set_message(message, why);
        return IP_STATUS_UNSUPPORTED;
    }
    pthread_mutex_init(&store->lock, NULL);
    pthread_cond_init(&store->available, NULL);
    /* Opening does not need the server: a tier that is down now is skipped and joins when it comes up. */
    *out = store;
    return IP_STATUS_OK;
}

static ip_status cache_get(ip_cache_store *store, const char *key, const ip_byte_sink *sink, ip_message message) {
    size_t length = 0;
    char *name = full_key(store, key, &length);
    if (!name) { set_message(message, "out of memory"); return IP_STATUS_NO_MEMORY; }
    redisContext *c = take(store, message);
    if (!c) { free(name); return IP_STATUS_IO; }
    redisReply *reply = redisCommand(c, "GET %b", name, length);
    free(name);
    if (!reply) {
        set_message(message, c->errstr[0] ? c->errstr : "no reply");
        give_back(store, c, 1);
        return IP_STATUS_IO;
    }
    ip_status status = IP_STATUS_OK;
    if (reply->type == REDIS_REPLY_STRING) {
        status = reply->len > 0 ? sink->write(sink->context, (const uint8_t *)reply->str, reply->len) : IP_STATUS_OK;
        __atomic_add_fetch(&store->hits, 1, __ATOMIC_RELAXED);
    } else if (reply->type == REDIS_REPLY_NIL) {
        set_message(message, "no such key");
        status = IP_STATUS_NOT_FOUND;
        __atomic_add_fetch(&store->misses, 1, __ATOMIC_RELAXED);
    } else {
        set_message(message, reply->type == REDIS_REPLY_ERROR ? reply->str : "unexpected reply to GET");
        status = IP_STATUS_IO;
    }
    freeReplyObject(reply);
    give_back(store, c, 0);
    return status;
}

static ip_status cache_put(ip_cache_store *store, const char *key, const uint8_t *data, size_t size, ip_message message) {
    if (size > store->config.max_entry) return IP_STATUS_OK;  /* not stored, by policy */
    size_t length = 0;
    char *name = full_key(store, key, &length);
    if (!name) { set_message(message, "out of memory"); return IP_STATUS_NO_MEMORY; }
    redisContext *c = take(store, message);
    if (!c) { free(name); return IP_STATUS_IO; }
    redisReply *reply = store->config.ttl > 0
        ? redisCommand(c, "SET %b %b EX %lld", name, length, data, size, store->config.ttl)
        : redisCommand(c, "SET %b %b", name, length, data, size);
    free(name);
    if (!reply) {
        set_message(message, c->errstr[0] ? c->errstr : "no reply");
        give_back(store, c, 1);
        return IP_STATUS_IO;
    }
    ip_status status = reply->type == REDIS_REPLY_ERROR ? IP_STATUS_IO : IP_STATUS_OK;
    if (status != IP_STATUS_OK) set_message(message, reply->str);
    freeReplyObject(reply);
    give_back(store, c, 0);
    return status;
}

static ip_status cache_remove(ip_cache_store *store, const char *key, ip_message message) {
    size_t length = 0;
    char *name = full_key(store, key, &length);
    if (!name) { set_message(message, "out of memory"); return IP_STATUS_NO_MEMORY; }
    redisContext *c = take(store, message);
    if (!c) { free(name); return IP_STATUS_IO; }
    redisReply *reply = redisCommand(c, "DEL %b", name, length);
    free(name);
    if (!reply) { give_back(store, c, 1); return IP_STATUS_IO; }
    freeReplyObject(reply);
    give_back(store, c, 0);
    return IP_STATUS_OK;
}

/* Calls `each` for every key of the namespace (SCAN, so the server never blocks on a huge KEYS). */
static ip_status scan_namespace(ip_cache_store *store, redisContext *c, int delete_them, uint64_t *count) {
    char pattern[160], cursor[32] = "0";
    snprintf(pattern, sizeof pattern, "%s:*", store->config.ns);
    do {
        redisReply *reply = redisCommand(c, "SCAN %s MATCH %s COUNT 1000", cursor, pattern);
        if (!reply || reply->type != REDIS_REPLY_ARRAY || reply->elements != 2) {
            if (reply) freeReplyObject(reply);
            return IP_STATUS_IO;
        }
        snprintf(cursor, sizeof cursor, "%s", reply->element[0]->str);
        redisReply *keys = reply->element[1];
        *count += keys->elements;
        if (delete_them && keys->elements > 0) {
            const char **argv = malloc(sizeof(char *) * (keys->elements + 1));
            size_t *lengths = malloc(sizeof(size_t) * (keys->elements + 1));
            if (!argv || !lengths) { free(argv); free(lengths); freeReplyObject(reply); return IP_STATUS_NO_MEMORY; }
            argv[0] = "UNLINK";
            lengths[0] = 6;
            for (size_t i = 0; i < keys->elements; i++) {
                argv[i + 1] = keys->element[i]->str;
                lengths[i + 1] = keys->element[i]->len;
            }
            redisReply *deleted = redisCommandArgv(c, (int)keys->elements + 1, argv, lengths);
            free(argv);
            free(lengths);
            if (!deleted) { freeReplyObject(reply); return IP_STATUS_IO; }
            freeReplyObject(deleted);
        }
        freeReplyObject(reply);
    } while (strcmp(cursor, "0") != 0);
    return IP_STATUS_OK;
}

static ip_status cache_clear(ip_cache_store *store, ip_message message) {
    redisContext *c = take(store, message);
    if (!c) return IP_STATUS_IO;
    uint64_t count = 0;
    ip_status status = scan_namespace(store, c, 1, &count);
    if (status != IP_STATUS_OK) set_message(message, "clearing the namespace failed");
    give_back(store, c, status == IP_STATUS_IO);
    return status;
}

static ip_status cache_stats(ip_cache_store *store, ip_cache_stats *stats) {
    ip_message none = {NULL, 0};
    stats->hits = __atomic_load_n(&store->hits, __ATOMIC_RELAXED);
    stats->misses = __atomic_load_n(&store->misses, __ATOMIC_RELAXED);
    stats->entry_count = 0;
    stats->total_bytes = 0;  /* not kept: summing STRLEN over a shared server is not worth its load */
    redisContext *c = take(store, none);
    if (!c) return IP_STATUS_IO;
    uint64_t count = 0;
    ip_status status = scan_namespace(store, c, 0, &count);
    stats->entry_count = count;
    give_back(store, c, status == IP_STATUS_IO);
    return status;
}

static void cache_close(ip_cache_store *store) {
    if (!store) return;
    for (int i = 0; i < store->idle_count; i++) redisFree(store->idle[i]);
    pthread_mutex_destroy(&store->lock);
    pthread_cond_destroy(&store->available);
    free(store);
}

static const ip_cache_descriptor descriptor = {
    sizeof(ip_cache_descriptor), "org.imagepipe.cache.redis/1", "Redis", "1.0.0",
    IP_CACHE_THREAD_SAFE | IP_CACHE_PERSISTENT | IP_CACHE_SHARED, 50,
};
static const ip_cache cache = {
    .struct_size = sizeof(ip_cache), .descriptor = &descriptor, .open = cache_open, .get = cache_get, .put = cache_put,
    .remove = cache_remove, .clear = cache_clear, .stats = cache_stats, .close = cache_close,
};
static const ip_cache *const caches[] = {&cache};
static const ip_cache_factory factory = {sizeof(ip_cache_factory), 1, caches};

static ip_status plugin_init(const ip_host *host, const char *plugin_path, uint32_t host_minor, uint32_t *plugin_minor,
                             ip_message message) {
    (void)plugin_path;
    (void)message;
    the_host = host;
    *plugin_minor = host_minor < IP_ABI_MINOR ? host_minor : IP_ABI_MINOR;
    return IP_STATUS_OK;
}

static const void *get_factory(const char *id) { return strcmp(id, IP_CACHE_FACTORY_ID) == 0 ? &factory : NULL; }

static const ip_plugin_entry plugin_entry = {
    sizeof(ip_plugin_entry), IP_ABI_MAJOR, IP_ABI_MINOR, PLUGIN_ID, "Redis cache", "1.0.0", "imagepipe",
    "a shared cache tier on Redis (hiredis): TTL, per-entry size cap, timeouts, fail-open", plugin_init, NULL, get_factory, NULL,
};

IP_EXPORT const ip_plugin_entry *imagepipe_plugin_entry(void) { return &plugin_entry; }
