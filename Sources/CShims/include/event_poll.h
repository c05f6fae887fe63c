// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_EVENT_POLL_H
#define APNSKIT_EVENT_POLL_H
/*
 * The event loop's readiness API. Swift's Glibc module does not export <sys/epoll.h>, so the
 * transport's event loop (EventPoller.swift) imports it from here; elsewhere it uses poll(2).
 */
#ifdef __linux__
#include <sys/epoll.h>
#endif

#endif
