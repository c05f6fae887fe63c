// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/* memmem is a GNU extension: glibc declares it only under _GNU_SOURCE, which must come
 * before any system header. Its two-way search is linear in the haystack, whatever the
 * needle (the mock inbox's `q` search relies on that). */
#define _GNU_SOURCE
#include <string.h>
#include "shim_search.h"

int shim_contains_bytes(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length) {
    if (needle_length == 0) return 1;
    return memmem(haystack, haystack_length, needle, needle_length) != NULL;
}
