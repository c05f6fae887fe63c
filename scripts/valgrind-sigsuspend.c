// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/*
 * Preloaded into apnskit under valgrind by scripts/leakcheck.sh.
 *
 * valgrind 3.19 (Debian 12's) removes its own signal from the mask that sigsuspend() is
 * given by writing into the caller's memory. Swift's async main parks the main thread in
 * libdispatch's _dispatch_sigsuspend(), whose mask is a read-only constant, so valgrind
 * crashes ("the 'impossible' happened ... SIGSEGV") in every async command (verify, push,
 * mock serve). This sigsuspend passes a writable copy instead.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, (size_t)(_NSIG / 8));
}
