// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_SHIM_POOL_H
#define APNSKIT_SHIM_POOL_H
/*
 * A small-block memory pool for one nghttp2 session (nghttp2_mem's four functions; the session
 * calls them with the pool as mem_user_data).
 *
 * Why: nghttp2 allocates and frees about six blocks per request (a stream, an outbound item, a
 * copy of the header list, ...), and through glibc's malloc and free each pair cost some 190
 * instructions: about 1,100 per request, 3% of the mock's work (docs/benchmarks.md, issue 33).
 * Here a block is taken from and given back to a free list of its size class in about 15.
 *
 * Bounds: blocks of up to 4 KiB are pooled, in eight classes of powers of two (32 B to 4 KiB);
 * larger ones go to malloc. Freed blocks are kept for reuse only while the pool keeps less
 * than SHIM_POOL_CACHE_LIMIT bytes; beyond that they go back to malloc. So a session holds at
 * most that much unused memory, however large a burst it once had.
 *
 * Not thread-safe, by design: a session, and so its pool, is used by one thread at a time.
 * shim_pool_destroy frees the cached blocks and the pool; call it after nghttp2_session_del
 * (which hands every block of the session back).
 */
#include <stddef.h>

#define SHIM_POOL_CACHE_LIMIT (128 * 1024)

typedef struct shim_pool shim_pool;

/* NULL when out of memory. */
shim_pool *shim_pool_create(void);
void shim_pool_destroy(shim_pool *pool);

/* nghttp2_mem's functions; `pool` is the shim_pool. */
void *shim_pool_malloc(size_t size, void *pool);
void shim_pool_free(void *block, void *pool);
void *shim_pool_calloc(size_t count, size_t size, void *pool);
void *shim_pool_realloc(void *block, size_t size, void *pool);

/* What the pool holds: unused bytes kept for reuse, and blocks handed out and not yet freed
   (tests: the bound holds, and every block comes back). */
size_t shim_pool_cached_bytes(const shim_pool *pool);
size_t shim_pool_blocks_in_use(const shim_pool *pool);
#endif
