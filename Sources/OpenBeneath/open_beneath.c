#define _GNU_SOURCE
#include "open_beneath.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_by_walk(int root, const char *path, int last_flags) {
    char *copy = strdup(path);
    if (!copy) return -1;
    int current = dup(root);
    char *save = NULL;
    char *part = strtok_r(copy, "/", &save);
    while (current >= 0 && part) {
        char *next = strtok_r(NULL, "/", &save);
        if (strcmp(part, "..") == 0) {
            close(current);
            current = -1;
            errno = EXDEV;
            break;
        }
        if (strcmp(part, ".") != 0) {
            int flags = next ? (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                             : (last_flags | O_NOFOLLOW);
            int opened = openat(current, part, flags);
            int saved = errno;
            close(current);
            current = opened;
            errno = saved;
        } else if (!next) {
            errno = EISDIR;
            close(current);
            current = -1;
        }
        part = next;
    }
    int saved = errno;
    free(copy);
    errno = saved;
    return current;
}

static int open_beneath(int root, const char *path, int flags) {
    while (*path == '/') path++;
    if (*path == 0) {
        errno = EISDIR;
        return -1;
    }
#ifdef SYS_openat2
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)flags;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    /* EAGAIN: a rename raced the resolution and the kernel asks to retry; bounded, so a renaming attacker
     * cannot keep a request thread spinning. */
    for (int attempt = 0; attempt < 32; attempt++) {
        long fd = syscall(SYS_openat2, root, path, &how, sizeof how);
        if (fd >= 0) return (int)fd;
        if (errno == EAGAIN || errno == EINTR) continue;
        if (errno != ENOSYS) return -1;
        return open_by_walk(root, path, flags);
    }
    return -1;
#endif
    return open_by_walk(root, path, flags);
}

int ip_open_beneath(int root, const char *path) {
    return open_beneath(root, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
}

int ip_stat_beneath(int root, const char *path, struct stat *info) {
    int fd = open_beneath(root, path, O_PATH | O_CLOEXEC);
    if (fd < 0) return -1;
    int result = fstat(fd, info);
    int saved = errno;
    close(fd);
    /* openat2 follows a final link that stays inside; the fallback walk's O_NOFOLLOW opens the link itself,
     * which ip_open_beneath would have refused: refuse it here too. */
    if (result == 0 && S_ISLNK(info->st_mode)) {
        saved = ELOOP;
        result = -1;
    }
    errno = saved;
    return result;
}

int ip_stat_unconfined(int root, const char *path, struct stat *info) {
    while (*path == '/') path++;
    if (*path == 0) {
        errno = EISDIR;
        return -1;
    }
    return fstatat(root, path, info, AT_NO_AUTOMOUNT);
}
