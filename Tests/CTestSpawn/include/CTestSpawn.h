// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_CTESTSPAWN_H
#define APNSKIT_CTESTSPAWN_H
#include <spawn.h>

/// glibc's GNU posix_spawn extensions, which Swift's Glibc module does not import (they need
/// _GNU_SOURCE): TestSupport's SpawnedProcess closes the child's descriptors above 2 and sets
/// its working folder with them, and makes its stdin pipe close-on-exec.
int test_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from);
int test_spawn_addchdir(posix_spawn_file_actions_t *actions, const char *path);
int test_pipe_cloexec(int fds[2]);

#endif
