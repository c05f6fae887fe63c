// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
// A counting malloc interposer for the benchmarks' allocations-per-unit rows (issue 24).
//
//   gcc -O2 -shared -fPIC -o malloc-count.so scripts/malloc-count.c -ldl
//   LD_PRELOAD=$PWD/malloc-count.so MALLOC_COUNT_OUT=counts.%p program ...
//
// Every call to malloc, calloc, realloc, reallocarray, posix_memalign, aligned_alloc,
// memalign, valloc, pvalloc and free is counted, then handed to the real allocator (the next
// definition, found with dlsym(RTLD_NEXT)), so the program's heap behaves as without it.
//
// Why the counters live in a shared file mapping (MALLOC_COUNT_OUT, "%p" replaced by the pid)
// rather than being written at exit: a server is measured while it runs (read before and after
// each h2load run), and a process that ends by a signal never runs a destructor. The file is
// always current; `malloc_counts` in scripts/lib.sh reads it (eight little-endian 64-bit
// words: see `struct counts`).
//
// Why it barely perturbs: one relaxed atomic add per call (two with the byte count), no lock,
// no system call after start-up. Threads that allocate at once share one cache line of
// counters, which costs them some nanoseconds per call, not a change of behaviour.
//
// Children are not counted: the constructor takes LD_PRELOAD and MALLOC_COUNT_OUT out of the
// environment, so a process the measured one starts cannot reopen (and truncate) its file; a
// fork without exec keeps counting into a private block, leaving the parent's file alone. So
// set both on the measured command itself, never on a wrapper (env, time, chrt): the wrapper
// would be the process counted, and its child would run without the interposer.
//
// dlsym itself may call calloc/malloc before the real ones are known: those calls (on the
// thread resolving, flagged thread-locally) get memory from a small static arena, which free
// and realloc recognise and never hand to the real allocator.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum kind { MALLOC, CALLOC, REALLOC, ALIGNED, FREE };  // ALIGNED: the memalign family
struct counts {
    uint64_t calls[5];  // by `enum kind`
    uint64_t bytes;     // bytes asked for by the counted allocation calls
    uint64_t pid;
    uint64_t version;   // 1: this layout
};

static struct counts private_counts;
static struct counts *counters = &private_counts;

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void (*real_free)(void *);
static int resolved;
// initial-exec: a preloaded library's TLS is static, and this model reads it without
// __tls_get_addr (which may itself allocate).
static __thread int resolving __attribute__((tls_model("initial-exec")));

// The bootstrap arena: 16-byte aligned blocks, each after a 16-byte header holding its size.
static _Alignas(16) char arena[64 * 1024];
static size_t arena_used;

static void *arena_alloc(size_t size) {
    size_t need = 16 + ((size + 15) & ~(size_t)15);
    size_t start = __atomic_fetch_add(&arena_used, need, __ATOMIC_RELAXED);
    if (start + need > sizeof arena) { errno = ENOMEM; return NULL; }
    *(size_t *)(arena + start) = size;
    return arena + start + 16;
}

static int in_arena(const void *p) { return (const char *)p >= arena && (const char *)p < arena + sizeof arena; }

static void count(enum kind kind, size_t bytes) {
    struct counts *c = __atomic_load_n(&counters, __ATOMIC_RELAXED);
    __atomic_fetch_add(&c->calls[kind], 1, __ATOMIC_RELAXED);
    if (bytes) __atomic_fetch_add(&c->bytes, bytes, __ATOMIC_RELAXED);
}

static void resolve(void) {
    if (__atomic_load_n(&resolved, __ATOMIC_ACQUIRE)) return;
    resolving = 1;
    __atomic_store_n(&real_malloc, dlsym(RTLD_NEXT, "malloc"), __ATOMIC_RELAXED);
    __atomic_store_n(&real_calloc, dlsym(RTLD_NEXT, "calloc"), __ATOMIC_RELAXED);
    __atomic_store_n(&real_realloc, dlsym(RTLD_NEXT, "realloc"), __ATOMIC_RELAXED);
    __atomic_store_n(&real_posix_memalign, dlsym(RTLD_NEXT, "posix_memalign"), __ATOMIC_RELAXED);
    __atomic_store_n(&real_aligned_alloc, dlsym(RTLD_NEXT, "aligned_alloc"), __ATOMIC_RELAXED);
    __atomic_store_n(&real_memalign, dlsym(RTLD_NEXT, "memalign"), __ATOMIC_RELAXED);
    __atomic_store_n(&real_free, dlsym(RTLD_NEXT, "free"), __ATOMIC_RELAXED);
    resolving = 0;
    __atomic_store_n(&resolved, 1, __ATOMIC_RELEASE);
}

void *malloc(size_t size) {
    if (resolving) return arena_alloc(size);
    resolve();
    count(MALLOC, size);
    return real_malloc(size);
}

void *calloc(size_t n, size_t size) {
    if (resolving) return n && size > SIZE_MAX / n ? NULL : arena_alloc(n * size);  // static: zeroed
    resolve();
    count(CALLOC, n * size);
    return real_calloc(n, size);
}

void *realloc(void *p, size_t size) {
    if (p && in_arena(p)) {  // never the real allocator's: move it out
        void *moved = malloc(size);
        size_t old = *(size_t *)((char *)p - 16);
        if (moved) memcpy(moved, p, old < size ? old : size);
        return moved;
    }
    if (resolving) return arena_alloc(size);
    resolve();
    count(REALLOC, size);
    return real_realloc(p, size);
}

void *reallocarray(void *p, size_t n, size_t size) {
    if (n && size > SIZE_MAX / n) { errno = ENOMEM; return NULL; }
    return realloc(p, n * size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    resolve();
    count(ALIGNED, size);
    return real_posix_memalign(out, alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    resolve();
    count(ALIGNED, size);
    return real_aligned_alloc(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    resolve();
    count(ALIGNED, size);
    return real_memalign(alignment, size);
}

void *valloc(size_t size) { return memalign((size_t)sysconf(_SC_PAGESIZE), size); }

void *pvalloc(size_t size) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return memalign(page, (size + page - 1) & ~(page - 1));
}

void free(void *p) {
    if (!p || in_arena(p)) return;
    resolve();
    count(FREE, 0);
    real_free(p);
}

// After fork without exec: count into a private block (zeroed), not the parent's file.
static void forked_child(void) {
    memset(&private_counts, 0, sizeof private_counts);
    __atomic_store_n(&counters, &private_counts, __ATOMIC_RELAXED);
}

// MALLOC_COUNT_OUT with every "%p" replaced by the pid, into `path` (no malloc: no snprintf).
static int output_path(const char *pattern, char *path, size_t room) {
    char digits[24];
    int n = 0;
    for (long pid = getpid(); pid > 0 || n == 0; pid /= 10) digits[n++] = (char)('0' + pid % 10);
    size_t used = 0;
    for (const char *s = pattern; *s; s++) {
        if (s[0] == '%' && s[1] == 'p') {
            for (int i = n - 1; i >= 0; i--) { if (used + 1 >= room) return -1; path[used++] = digits[i]; }
            s++;
        } else {
            if (used + 1 >= room) return -1;
            path[used++] = *s;
        }
    }
    path[used] = 0;
    return 0;
}

__attribute__((constructor)) static void start(void) {
    resolve();
    const char *pattern = getenv("MALLOC_COUNT_OUT");
    char path[4096];
    if (pattern && output_path(pattern, path, sizeof path) == 0) {
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0 && ftruncate(fd, sizeof(struct counts)) == 0) {
            struct counts *shared = mmap(NULL, sizeof(struct counts), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (shared != MAP_FAILED) {
                *shared = private_counts;  // what start-up allocated before this constructor
                shared->pid = (uint64_t)getpid();
                shared->version = 1;
                __atomic_store_n(&counters, shared, __ATOMIC_RELEASE);
            }
        }
        if (fd >= 0) close(fd);
    }
    unsetenv("LD_PRELOAD");
    unsetenv("MALLOC_COUNT_OUT");
    pthread_atfork(NULL, NULL, forked_child);
}
