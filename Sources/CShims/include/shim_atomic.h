// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_SHIM_ATOMIC_H
#define APNSKIT_SHIM_ATOMIC_H
/*
 * Atomic operations on a 32-bit word that Swift owns: a stored property of a class instance,
 * reached through its address, so a per-request handle needs no lock of its own (the standard
 * library's Atomic needs macOS 15 where the package supports 13). Inline, so Swift's compiler
 * sees each as the one instruction it is. Every operation is acquire-release: what a thread
 * wrote before it set a bit is seen by the thread that reads the bit.
 */
#include <stdint.h>

static inline uint32_t shim_atomic_load_u32(uint32_t *word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

/* Sets `bits`; returns the word as it was before. */
static inline uint32_t shim_atomic_fetch_or_u32(uint32_t *word, uint32_t bits) {
    return __atomic_fetch_or(word, bits, __ATOMIC_ACQ_REL);
}

/* Sets `bits` unless one of `unless` is set; returns the word as it was (so the caller tells
 * which happened by testing `unless` in it). */
static inline uint32_t shim_atomic_or_unless_u32(uint32_t *word, uint32_t bits, uint32_t unless) {
    uint32_t seen = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    while ((seen & unless) == 0
           && !__atomic_compare_exchange_n(word, &seen, seen | bits, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    }
    return seen;
}

#endif
