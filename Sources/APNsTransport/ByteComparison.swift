// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension UnsafeBufferPointer where Element == UInt8 {
    /// Whether these bytes are exactly `other`'s: one `memcmp`, where a generic comparison
    /// element by element cost tens of instructions for each header of every message (a header
    /// name nghttp2 hands over against one the transport looks for; docs/benchmarks.md).
    func hasBytes(of other: UnsafeBufferPointer<UInt8>) -> Bool {
        count == other.count && (isEmpty || memcmp(baseAddress!, other.baseAddress!, count) == 0)
    }
}
