// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0

/// Bytes refilled for every message: storage that only grows, written in place, and emptied by
/// setting a count.
///
/// The header buffers of a session and of a received request are refilled a dozen times per
/// message. `Array.append(contentsOf:)` cost about 90 instructions per call (its uniqueness and
/// capacity checks, the generic copy) for names and values of a few bytes; here an append is
/// one capacity test and one `memcpy` (docs/benchmarks.md, issue 33).
struct GrowingBytes {
    /// `count` bytes in use; the rest is room. Never shrinks, except on `removeAll(keepingAtMost:)`.
    private var storage: [UInt8] = []
    /// Bytes in use.
    private(set) var count = 0

    /// Bytes kept for the next fill.
    var capacity: Int { storage.count }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(bytes, UnsafeBufferPointer(start: nil, count: 0))
    }

    /// `first`, then `second`: one capacity test and one uniqueness check for a name and its
    /// value.
    @inline(__always)
    mutating func append(_ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) {
        let start = count, end = count + first.count + second.count
        guard end > start else { return }
        if end > storage.count { grow(to: end) }
        storage.withUnsafeMutableBufferPointer { out in
            if !first.isEmpty { (out.baseAddress! + start).update(from: first.baseAddress!, count: first.count) }
            if !second.isEmpty { (out.baseAddress! + start + first.count).update(from: second.baseAddress!, count: second.count) }
        }
        count = end
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == storage.count { grow(to: count + 1) }
        storage[count] = byte
        count += 1
    }

    /// A String's UTF-8 bytes, copied once and read in place (appending a String's UTF-8 view
    /// goes a byte at a time; copying the String first, for `withUTF8`, retained and released it).
    mutating func append(utf8 text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { append($0) }
        if done == nil {
            var copy = text
            copy.withUTF8 { append($0) }
        }
    }

    /// `count` bytes that `write` stores at the pointer it is given (a value formatted in place,
    /// such as an id's hex digits, instead of being made a String first and then copied).
    mutating func append(count: Int, writing write: (UnsafeMutableRawPointer) -> Void) {
        guard count > 0 else { return }
        let start = self.count
        if start + count > storage.count { grow(to: start + count) }
        storage.withUnsafeMutableBufferPointer { write(UnsafeMutableRawPointer($0.baseAddress! + start)) }
        self.count = start + count
    }

    /// Room up to `end`: at least doubles, so refills stop growing it after the first few
    /// messages. Out of line: the appends inlined are a test and a copy.
    @inline(never)
    private mutating func grow(to end: Int) {
        storage.append(contentsOf: repeatElement(0, count: max(end, 2 * storage.count, 256) - storage.count))
    }

    /// Empties it, keeping the storage unless that grew past `limit` bytes.
    mutating func removeAll(keepingAtMost limit: Int = .max) {
        count = 0
        if storage.count > limit { storage = [] }
    }

    /// The bytes in use, read in place.
    func withUnsafeBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try storage.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[..<count])) }
    }

    /// The bytes in use, written in place; the buffer is never empty (at least one byte of room
    /// is made), so it always has a base address.
    mutating func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if storage.isEmpty { grow(to: 1) }
        let count = self.count
        return try storage.withUnsafeMutableBufferPointer { try body(UnsafeMutableBufferPointer(rebasing: $0[..<count])) }
    }
}
