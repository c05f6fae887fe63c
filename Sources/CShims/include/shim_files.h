// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_FILES_H
#define APNSKIT_FILES_H
#include <sys/types.h>
/* Opens an unnamed file in `directory` (Linux O_TMPFILE) with `mode`; -1 with errno when the
 * file system or platform cannot, and the caller falls back to a named temporary file. */
int shim_open_unnamed_tmpfile(const char *directory, mode_t mode);
/* Gives the unnamed file `fd` the name `path`; fails with EEXIST if `path` exists. */
int shim_link_unnamed_tmpfile(int fd, const char *path);
#endif
