/* LD_PRELOAD fault injector for tests: once FULL_DISK_BYTES bytes have been written under the
 * folder FULL_DISK_DIR, every further write there fails with ENOSPC, as on a full disk. Used
 * where a test cannot mount a small tmpfs (no user namespaces). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static long long spent;

static int under_full_dir(int fd) {
  const char *dir = getenv("FULL_DISK_DIR");
  char link[64], path[4096];
  ssize_t n;
  if (!dir) return 0;
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  n = readlink(link, path, sizeof path - 1);
  if (n < 0) return 0;
  path[n] = 0;
  return strncmp(path, dir, strlen(dir)) == 0;
}

/* 1 if the write may go ahead; 0 with errno = ENOSPC once the folder is "full". */
static int room_for(int fd, size_t count) {
  const char *limit = getenv("FULL_DISK_BYTES");
  if (!under_full_dir(fd)) return 1;
  if (__atomic_add_fetch(&spent, (long long)count, __ATOMIC_SEQ_CST) > atoll(limit ? limit : "0")) {
    errno = ENOSPC;
    return 0;
  }
  return 1;
}

#define REAL(name) ((typeof(&name))dlsym(RTLD_NEXT, #name))

ssize_t write(int fd, const void *buf, size_t count) {
  return room_for(fd, count) ? REAL(write)(fd, buf, count) : -1;
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
  return room_for(fd, count) ? REAL(pwrite)(fd, buf, count, offset) : -1;
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
  return room_for(fd, count) ? REAL(pwrite64)(fd, buf, count, offset) : -1;
}
