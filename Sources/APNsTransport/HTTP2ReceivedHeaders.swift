// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0

/// Server side: a request's regular headers as they arrived, as bytes. Every name and value
/// is copied, one after the other, into one byte array, and each field is a row of offsets
/// into it.
///
/// Why bytes and not `(name: String, value: String)` pairs: a gateway reads a handful of a
/// request's headers and ignores the rest (user-agent, content-length, ...), yet a pair array
/// made two Strings per header and, when the request was recycled, destroyed every pair
/// through the runtime's generic tuple witness. Here a header costs one copy of its bytes and
/// one row of integers, and emptying the arrays for the next request destroys nothing. The
/// handler makes a String of just the values it needs (docs/benchmarks.md, "the mock's byte
/// view").
package struct HTTP2ReceivedHeaders: Sendable {
    /// Where one field's name and value sit in the bytes `withUnsafeFields` hands over.
    package struct Field: Sendable, Equatable {
        package let nameStart: UInt32
        package let nameCount: UInt32
        package let valueStart: UInt32
        package let valueCount: UInt32

        /// The name's bytes, in `bytes` (the buffer `withUnsafeFields` hands over).
        package func name(in bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: bytes[Int(nameStart)..<Int(nameStart) + Int(nameCount)])
        }

        /// Where the value sits in that buffer.
        package var valueRange: Range<Int> { Int(valueStart)..<Int(valueStart) + Int(valueCount) }
    }

    /// The names and values, one after the other.
    private var storage = GrowingBytes()
    /// How many bytes the names and values take.
    package var byteCount: Int { storage.count }
    /// The fields in the order they arrived.
    package private(set) var fields: [Field] = []

    package init() {}

    /// Pairs as a request built in code carries them (the slow path: tests, a handler called
    /// directly), in order.
    package init(_ pairs: [(name: String, value: String)]) {
        fields.reserveCapacity(pairs.count)
        for pair in pairs {
            Array(pair.name.utf8).withUnsafeBufferPointer { name in
                Array(pair.value.utf8).withUnsafeBufferPointer { value in append(name: name, value: value) }
            }
        }
    }

    package var isEmpty: Bool { fields.isEmpty }
    package var count: Int { fields.count }

    /// Appends one field. The caller bounds the total: `HTTP2Settings.maxHeaderListSize`
    /// (16 KiB by default) is checked before every header, so offsets fit a `UInt32`.
    mutating func append(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        let nameStart = storage.count
        storage.append(name, value)
        fields.append(Field(nameStart: UInt32(truncatingIfNeeded: nameStart), nameCount: UInt32(truncatingIfNeeded: name.count),
                            valueStart: UInt32(truncatingIfNeeded: nameStart + name.count),
                            valueCount: UInt32(truncatingIfNeeded: value.count)))
    }

    /// Empties it for the next request on the connection, keeping its storage unless that
    /// grew past `byteLimit` bytes (a recycled request keeps at most that much).
    mutating func removeAll(keepingAtMost byteLimit: Int = .max) {
        storage.removeAll(keepingAtMost: byteLimit)
        fields.removeAll(keepingCapacity: true)
    }

    /// Bytes kept for the next request's headers.
    var capacity: Int { storage.capacity }

    /// Reserves room for `count` fields (what the previous request had).
    mutating func reserveFields(_ count: Int) { fields.reserveCapacity(count) }

    /// The bytes and the fields, read in place.
    package func withUnsafeFields<Result>(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<Field>) throws -> Result) rethrows -> Result {
        try storage.withUnsafeBytes { bytes in try fields.withUnsafeBufferPointer { try body(bytes, $0) } }
    }

    /// Every field as a pair of Strings, in order (for code that is not on a request's fast
    /// path: logs, the inbox, tests).
    package var pairs: [(name: String, value: String)] {
        withUnsafeFields { bytes, fields in
            fields.map { field in
                (String(decoding: field.name(in: bytes), as: UTF8.self),
                 String(decoding: UnsafeBufferPointer(rebasing: bytes[field.valueRange]), as: UTF8.self))
            }
        }
    }

    /// The first value of header `name` (lower case, as HTTP/2 sends names), or nil.
    package func value(of name: String) -> String? {
        let wanted = Array(name.utf8)
        return withUnsafeFields { bytes, fields in
            wanted.withUnsafeBufferPointer { wanted in
                fields.first { $0.name(in: bytes).hasBytes(of: wanted) }
                    .map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0.valueRange]), as: UTF8.self) }
            }
        }
    }
}
