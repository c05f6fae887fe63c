// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_LOOP_THREAD_H
#define APNSKIT_LOOP_THREAD_H
/*
 * Which event loop runs on the calling thread (NULL on any other thread). Swift has no
 * thread-local variables of its own, and pthread_getspecific is a call and a table look-up;
 * a C11 _Thread_local is one load from the thread pointer. The transport's EventLoop sets it
 * once when its thread starts (EventLoop.swift, `atEndOfTurn`).
 */
void shim_set_current_loop(void *loop);
void *shim_current_loop(void);

#endif
