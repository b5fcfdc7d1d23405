/* Opening a file inside a folder so that no path trick leaves it: `..`, an absolute symbolic link, a link swapped
 * in between a check and the open (the race a realpath check then open-by-name loses), /proc magic links. The
 * service opens its local sources this way, relative to a descriptor of its --root, and reads them through the
 * descriptor it gets: what was checked is what is read. */
#ifndef IMAGEPIPE_OPEN_BENEATH_H
#define IMAGEPIPE_OPEN_BENEATH_H
#include <sys/stat.h>

/* Opens `path` (relative; a leading "/" is ignored) beneath the folder `root` refers to, read-only, close-on-exec,
 * non-blocking (a FIFO cannot hang it). Linux openat2 with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS: symbolic links
 * that stay inside are followed, any resolution that would leave the folder fails with EXDEV. Where the kernel has
 * no openat2 (ENOSYS, before 5.6), a walk of O_NOFOLLOW opens component by component, which refuses every symbolic
 * link (ELOOP) and every ".." (EXDEV). Returns the descriptor, or -1 with errno set. */
int ip_open_beneath(int root, const char *path);

/* What fstat says of `path` beneath `root`, resolved exactly as ip_open_beneath resolves it, through an O_PATH
 * descriptor: the file is not opened for reading, so a look-up of a request's source (its identity, for the cache
 * key) costs no open file and triggers nothing (a FIFO or a device is only looked at). Returns 0, or -1 with errno
 * set (EXDEV/ELOOP where the path would leave the folder). A file to be read is opened with ip_open_beneath. */
int ip_stat_beneath(int root, const char *path, struct stat *info);

/* What fstatat says of `path` (a leading "/" is ignored) relative to `root`, symbolic links followed as
 * ip_stat_beneath follows the ones that stay inside: one system call, where ip_stat_beneath makes three (openat2,
 * fstat, close). NOT confined to the folder: a symbolic link may lead anywhere. Its only use is to confirm that a
 * path still leads to the very file (device, inode, size, times) that ip_stat_beneath found there before; anything
 * else must be decided by ip_stat_beneath. Looked at, never opened (a FIFO cannot block it). Returns 0, or -1 with
 * errno set. */
int ip_stat_unconfined(int root, const char *path, struct stat *info);

#endif
