/* libcurl for Swift.
 *
 * curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, and Swift cannot call variadic C
 * functions. These typed wrappers fix the third argument's type, one wrapper per argument kind that libcurl
 * documents (long, curl_off_t, string, pointer, list, callback). Using the wrong wrapper for an option is the
 * same mistake as passing the wrong type to the variadic function: check the option's CURLOPTTYPE_*.
 */
#ifndef IMAGEPIPE_CCURL_SHIM_H
#define IMAGEPIPE_CCURL_SHIM_H

#include <curl/curl.h>

/* The write and header callback shape (curl_write_callback). */
typedef size_t (*ip_curl_data_callback)(char *buffer, size_t size, size_t count, void *context);

static inline CURLcode ip_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ip_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/* libcurl copies strings passed to setopt (since 7.17), so `value` may be freed after the call. */
static inline CURLcode ip_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ip_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/* libcurl does NOT copy a list: it must outlive the transfer. */
static inline CURLcode ip_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/* For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION. */
static inline CURLcode ip_curl_easy_setopt_data_callback(CURL *handle, CURLoption option,
                                                          ip_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

/* For CURLOPT_OPENSOCKETFUNCTION: the callback sees each resolved address before a socket is made for it. */
static inline CURLcode ip_curl_easy_setopt_opensocket_callback(CURL *handle, curl_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}

/* For CURLOPT_PREREQFUNCTION (libcurl 7.80+): called once a connection is ready, new or reused, before each
 * request (every redirect hop) is sent; receives the peer's address as text. */
typedef int (*ip_curl_prereq_callback)(void *context, char *primary_ip, char *local_ip, int primary_port, int local_port);
static inline CURLcode ip_curl_easy_setopt_prereq_callback(CURL *handle, ip_curl_prereq_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, callback);
}

static inline CURLcode ip_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ip_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/* The string is owned by the handle and valid until the next call on it; copy it out. */
static inline CURLcode ip_curl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ip_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode ip_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/* CURLVERSION_NOW is a macro over an enum constant, which Swift does not import. */
static inline curl_version_info_data *ip_curl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}

/* CURLMsg.data is an anonymous union: read its result without the Swift importer's union spelling. */
static inline CURLcode ip_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

#endif
