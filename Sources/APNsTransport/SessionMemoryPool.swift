// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import CNGHTTP2
internal import CShims

/// The small-block pool one nghttp2 session allocates from (`shim_pool`, CShims/pool.c).
///
/// nghttp2 allocates and frees about six blocks per request; through glibc each pair cost some
/// 190 instructions, about 1,100 per request on the mock's path, where a pooled pair costs
/// about 30 (docs/benchmarks.md, issue 33). The pool keeps at most `cacheLimit` bytes of freed
/// blocks; beyond that, and for blocks over 4 KiB, it hands memory back to malloc.
///
/// Owns the `shim_pool` (the only Swift object that frees it, in deinit). Its session's owner,
/// `HTTP2Session`, holds it in a stored property, so it is released only after that session's
/// deinit has deleted the nghttp2 session, which gives every block back first. Not
/// `Sendable`: like its session, used by one loop thread.
final class SessionMemoryPool {
    private let pool: OpaquePointer

    /// The most bytes of freed blocks kept for reuse (`SHIM_POOL_CACHE_LIMIT`).
    static let cacheLimit = Int(SHIM_POOL_CACHE_LIMIT)

    /// nil when out of memory.
    init?() {
        guard let pool = shim_pool_create() else { return nil }
        self.pool = pool
    }

    deinit { shim_pool_destroy(pool) }

    /// The functions for `nghttp2_session_*_new3`, which copies the struct.
    var allocator: nghttp2_mem {
        nghttp2_mem(mem_user_data: UnsafeMutableRawPointer(pool), malloc: shim_pool_malloc, free: shim_pool_free,
                    calloc: shim_pool_calloc, realloc: shim_pool_realloc)
    }

    /// Bytes of freed blocks kept for reuse (at most `cacheLimit`).
    var cachedBytes: Int { shim_pool_cached_bytes(pool) }
    /// Blocks handed out and not yet given back.
    var blocksInUse: Int { shim_pool_blocks_in_use(pool) }
}
