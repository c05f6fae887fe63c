// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's open-file limit (`ulimit -n`): every connection a server holds is a file
/// descriptor, so this, not the server's own connection limit, may be what binds first.
package enum OpenFileLimit {
    /// The soft limit now in force.
    package static var current: Int {
        var limit = rlimit()
        getrlimit(resource, &limit)
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to `wanted` if it is lower, as far as the hard limit allows
    /// (only root may raise that; many systems start processes at 1024 soft with a much higher
    /// hard limit), and returns the soft limit then in force.
    @discardableResult
    package static func raise(toAtLeast wanted: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return current }
        let target = min(rlim_t(max(wanted, 0)), limit.rlim_max)
        if limit.rlim_cur < target {
            limit.rlim_cur = target
            _ = setrlimit(resource, &limit)
        }
        return current
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}
