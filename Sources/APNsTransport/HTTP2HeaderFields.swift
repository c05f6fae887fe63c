// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0

/// Header fields as bytes: every name and value copied, one after the other, into one byte
/// array, and each field a row of offsets into it. A server's requests arrive in this form
/// (`HTTP2Request.received`), and a server can write an answer's headers in it
/// (`HTTP2Response.fields`).
///
/// Why bytes and not `(name: String, value: String)` pairs: a gateway reads a handful of a
/// request's headers and ignores the rest (user-agent, content-length, ...), yet a pair array
/// made two Strings per header and, when the request was recycled, destroyed every pair
/// through the runtime's generic tuple witness. Here a header costs one copy of its bytes and
/// one row of integers, and emptying the arrays for the next request destroys nothing. The
/// handler makes a String of just the values it needs. An answer written here again and again
/// (a gateway keeps one per connection) allocates nothing once its arrays have grown, and a
/// value such as a fresh id is formatted straight into it (docs/benchmarks.md, "the mock's
/// byte view").
package struct HTTP2HeaderFields: Sendable {
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
        appendRow(nameStart: nameStart, valueStart: nameStart + name.count)
    }

    /// Appends a field of an answer. `name` must be lower case, as HTTP/2 sends names (it is
    /// copied as it is). The caller bounds the total, as with received fields.
    package mutating func append(name: StaticString, value: String) {
        let nameStart = storage.count
        name.withUTF8Buffer { storage.append($0) }
        let valueStart = storage.count
        storage.append(utf8: value)
        appendRow(nameStart: nameStart, valueStart: valueStart)
    }

    /// Appends a field whose value, `valueCount` bytes, `write` stores in place at the pointer
    /// it is given (an id's hex digits, without making a String of them first). `name` must be
    /// lower case.
    package mutating func append(name: StaticString, valueCount: Int, writing write: (UnsafeMutableRawPointer) -> Void) {
        let nameStart = storage.count
        name.withUTF8Buffer { storage.append($0) }
        let valueStart = storage.count
        storage.append(count: valueCount, writing: write)
        appendRow(nameStart: nameStart, valueStart: valueStart)
    }

    private mutating func appendRow(nameStart: Int, valueStart: Int) {
        fields.append(Field(nameStart: UInt32(truncatingIfNeeded: nameStart), nameCount: UInt32(truncatingIfNeeded: valueStart - nameStart),
                            valueStart: UInt32(truncatingIfNeeded: valueStart),
                            valueCount: UInt32(truncatingIfNeeded: storage.count - valueStart)))
    }

    /// Empties it for the next request or answer on the connection, keeping its storage unless
    /// that grew past `byteLimit` bytes (a recycled request keeps at most that much).
    package mutating func removeAll(keepingAtMost byteLimit: Int = .max) {
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
