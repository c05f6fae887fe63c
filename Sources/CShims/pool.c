// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
// A small-block pool for one nghttp2 session: see include/shim_pool.h.
#include "shim_pool.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    CLASS_COUNT = 8,        /* 32, 64, ..., 4096 bytes */
    SMALLEST_SHIFT = 5,     /* 32 bytes */
    HEADER = 16,            /* keeps the block 16-byte aligned, as malloc's are */
    LARGE = 0xFF            /* a block over 4 KiB: malloc's own */
};

/* Each block is preceded by its header: the size class (or LARGE) and, for a large block, its
   size. A free block's first word links to the next free block of its class. */
typedef struct header {
    size_t size_class;
    size_t large_size;
} header;

struct shim_pool {
    void *free_lists[CLASS_COUNT];
    size_t cached_bytes;
    size_t in_use;
};

_Static_assert(sizeof(header) == HEADER, "the header keeps blocks 16-byte aligned");

static inline size_t class_size(size_t size_class) { return (size_t)1 << (size_class + SMALLEST_SHIFT); }

/* The class of a block of `size` bytes, or LARGE. */
static inline size_t class_of(size_t size) {
    if (size <= class_size(0)) return 0;
    if (size > class_size(CLASS_COUNT - 1)) return LARGE;
    /* ceil(log2(size)) - 5: size - 1 has its top bit where the class's power is. */
    return (size_t)(64 - __builtin_clzll((unsigned long long)(size - 1))) - SMALLEST_SHIFT;
}

static inline header *header_of(void *block) { return (header *)((char *)block - HEADER); }

shim_pool *shim_pool_create(void) { return calloc(1, sizeof(shim_pool)); }

void shim_pool_destroy(shim_pool *pool) {
    if (pool == NULL) return;
    for (size_t size_class = 0; size_class < CLASS_COUNT; size_class++) {
        void *block = pool->free_lists[size_class];
        while (block != NULL) {
            void *next = *(void **)block;
            free(header_of(block));
            block = next;
        }
    }
    free(pool);
}

void *shim_pool_malloc(size_t size, void *user) {
    shim_pool *pool = user;
    size_t size_class = class_of(size);
    if (size_class != LARGE) {
        void *block = pool->free_lists[size_class];
        if (block != NULL) {
            pool->free_lists[size_class] = *(void **)block;
            pool->cached_bytes -= class_size(size_class);
            pool->in_use++;
            return block;
        }
    }
    if (size > SIZE_MAX - HEADER) return NULL;
    size_t bytes = size_class == LARGE ? size : class_size(size_class);
    header *start = malloc(HEADER + bytes);
    if (start == NULL) return NULL;
    start->size_class = size_class;
    start->large_size = size_class == LARGE ? size : 0;
    pool->in_use++;
    return (char *)start + HEADER;
}

void shim_pool_free(void *block, void *user) {
    if (block == NULL) return;
    shim_pool *pool = user;
    header *start = header_of(block);
    pool->in_use--;
    size_t size_class = start->size_class;
    if (size_class == LARGE || pool->cached_bytes + class_size(size_class) > SHIM_POOL_CACHE_LIMIT) {
        free(start);
        return;
    }
    *(void **)block = pool->free_lists[size_class];
    pool->free_lists[size_class] = block;
    pool->cached_bytes += class_size(size_class);
}

void *shim_pool_calloc(size_t count, size_t size, void *user) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    void *block = shim_pool_malloc(count * size, user);
    if (block != NULL) memset(block, 0, count * size);
    return block;
}

void *shim_pool_realloc(void *block, size_t size, void *user) {
    if (block == NULL) return shim_pool_malloc(size, user);
    if (size == 0) {
        shim_pool_free(block, user);
        return NULL;
    }
    header *start = header_of(block);
    size_t capacity = start->size_class == LARGE ? start->large_size : class_size(start->size_class);
    if (size <= capacity && start->size_class != LARGE) return block;
    void *moved = shim_pool_malloc(size, user);
    if (moved == NULL) return NULL;  /* the old block stays valid, as realloc's does */
    memcpy(moved, block, capacity < size ? capacity : size);
    shim_pool_free(block, user);
    return moved;
}

size_t shim_pool_cached_bytes(const shim_pool *pool) { return pool->cached_bytes; }

size_t shim_pool_blocks_in_use(const shim_pool *pool) { return pool->in_use; }
