// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_TTY_H
#define APNSKIT_TTY_H
/* Turns echo off on terminal `fd` for a passphrase prompt, and until `shim_tty_restore`
 * installs handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT that put the terminal back as it
 * was, then re-raise the signal with the previous handler: Ctrl-C at the prompt must not leave
 * the user's shell with echo off (a parent that does not restore it, such as a script run by
 * make, would). 0 on success; -1 if `fd` is not a terminal (nothing changed). */
int shim_tty_echo_off(int fd);
/* Restores the terminal and the previous signal handlers. */
void shim_tty_restore(void);
#endif
