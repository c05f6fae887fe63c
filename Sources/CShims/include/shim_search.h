// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_APNS_SEARCH_H
#define APNSKIT_APNS_SEARCH_H
#include <stddef.h>

/* 1 when `needle` occurs in `haystack` (glibc's memmem: linear time), else 0. */
int shim_contains_bytes(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length);

#endif
