// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE
#include "shim_files.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int shim_open_unnamed_tmpfile(const char *directory, mode_t mode) {
#ifdef O_TMPFILE
    return open(directory, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
#else
    (void)directory; (void)mode;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

int shim_link_unnamed_tmpfile(int fd, const char *path) {
#ifdef O_TMPFILE
    char procpath[64];
    snprintf(procpath, sizeof procpath, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, procpath, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
#else
    (void)fd; (void)path;
    errno = EOPNOTSUPP;
    return -1;
#endif
}
