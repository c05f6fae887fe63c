// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#include "shim_tty.h"
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
enum { signal_count = sizeof signals / sizeof signals[0] };
static struct sigaction previous[signal_count];
static struct termios saved;
static volatile sig_atomic_t tty_fd = -1;

/* Async-signal-safe: tcsetattr, write, sigaction and raise only. */
static void restore_and_reraise(int sig) {
    int fd = tty_fd;
    if (fd >= 0) {
        tcsetattr(fd, TCSAFLUSH, &saved);
        (void)!write(fd, "\n", 1);
        tty_fd = -1;
    }
    for (int i = 0; i < signal_count; i++) {
        if (signals[i] == sig) sigaction(sig, &previous[i], NULL);
    }
    raise(sig);  /* delivered with the previous disposition once this handler returns */
}

int shim_tty_echo_off(int fd) {
    if (tcgetattr(fd, &saved) != 0) return -1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = restore_and_reraise;
    sigemptyset(&action.sa_mask);
    tty_fd = fd;
    for (int i = 0; i < signal_count; i++) sigaction(signals[i], &action, &previous[i]);
    struct termios quiet = saved;
    quiet.c_lflag &= ~(tcflag_t)ECHO;
    if (tcsetattr(fd, TCSAFLUSH, &quiet) != 0) {
        shim_tty_restore();
        return -1;
    }
    return 0;
}

void shim_tty_restore(void) {
    int fd = tty_fd;
    if (fd < 0) return;
    tcsetattr(fd, TCSAFLUSH, &saved);
    tty_fd = -1;
    for (int i = 0; i < signal_count; i++) sigaction(signals[i], &previous[i], NULL);
}
