// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import CNGHTTP2

/// An `nghttp2_nv` array and the bytes it points into, refilled for every message.
///
/// nghttp2 copies names and values when a request or response is submitted, so the array only
/// has to live during that call. A session keeps one buffer and refills it (its storage keeps
/// its capacity), instead of allocating three arrays per message: at 100,000 responses a
/// second those allocations were a measurable share of the server's time. A struct: the owner
/// swaps it into a local while filling it, so its arrays cost no runtime exclusivity checks.
struct NameValueBuffer {
    private var bytes = GrowingBytes()
    private var entries: [(name: Int, nameCount: Int, value: Int, valueCount: Int, flags: UInt8)] = []
    private var nameValues: [nghttp2_nv] = []

    init() {}

    mutating func removeAll() {
        bytes.removeAll()
        entries.removeAll(keepingCapacity: true)
    }

    /// Appends one header. Names are lowercased while copied (HTTP/2 requires lower case, and
    /// `lowercased()` would allocate a String per name). `indexed: false` sends the value as a
    /// literal HPACK never adds to its dynamic table: right for values that differ on every
    /// message (ids), which would only push reusable entries out of both peers' tables.
    mutating func append(name: String, value: String, indexed: Bool = true) {
        let nameStart = bytes.count
        bytes.append(utf8: name)
        lowercase(from: nameStart)
        let valueStart = bytes.count
        bytes.append(utf8: value)
        let flags = indexed ? NGHTTP2_NV_FLAG_NONE : NGHTTP2_NV_FLAG_NO_INDEX
        entries.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart, UInt8(flags.rawValue)))
    }

    /// Appends a block's fields, encoded once beforehand, in one copy; `neverIndexed` says
    /// which names go out as literals HPACK never indexes (see `append(name:value:indexed:)`).
    mutating func append(_ block: HTTP2HeaderBlock, neverIndexed: (String) -> Bool) {
        let base = bytes.count
        block.bytes.withUnsafeBufferPointer { bytes.append($0) }
        for (span, field) in zip(block.spans, block.fields) {
            let flags = neverIndexed(field.name) ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE
            entries.append((base + span.name, span.nameCount, base + span.value, span.valueCount, UInt8(flags.rawValue)))
        }
    }

    /// Appends fields already laid out as bytes (an answer written in place, `HTTP2HeaderFields`)
    /// in one copy; their names must be lower case. `neverIndexed` says which names go out as
    /// literals HPACK never indexes (see `append(name:value:indexed:)`).
    mutating func append(_ fields: HTTP2HeaderFields, neverIndexed: (UnsafeBufferPointer<UInt8>) -> Bool) {
        let base = bytes.count
        fields.withUnsafeFields { source, rows in
            bytes.append(source)
            for row in rows {
                let flags = neverIndexed(row.name(in: source)) ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE
                entries.append((base + Int(row.nameStart), Int(row.nameCount), base + Int(row.valueStart), Int(row.valueCount),
                                UInt8(flags.rawValue)))
            }
        }
    }

    /// `byte` with an ASCII capital made lower case (HTTP/2 header names are lower case); every
    /// other byte as it is.
    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 { byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte }

    /// Lowercases the ASCII letters of `bytes[start...]` in place, through a pointer: indexing
    /// the array checked bounds and uniqueness per byte, about a thousand instructions per
    /// request for a dozen header names (docs/benchmarks.md, issue 33).
    private mutating func lowercase(from start: Int) {
        bytes.withUnsafeMutableBytes { buffer in
            var byte = buffer.baseAddress! + start
            let end = buffer.baseAddress! + buffer.count
            while byte < end {
                byte.pointee = Self.lowercased(byte.pointee)
                byte += 1
            }
        }
    }

    /// Appends a header whose value is `value` in decimal (a `content-length`), written digit
    /// by digit without formatting a String. `name` must be lowercase.
    mutating func append(name: String, decimal value: Int) {
        let nameStart = bytes.count
        bytes.append(utf8: name)
        let valueStart = bytes.count
        let number = max(value, 0)
        var divisor = 1
        while divisor <= number / 10 { divisor *= 10 }
        var rest = number
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        } while divisor > 0
        entries.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart, UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
    }

    /// Appends `:status` (three digits, the code kept within 100...999).
    mutating func appendStatus(_ status: Int) {
        append(name: ":status", decimal: min(max(status, 100), 999))
    }

    /// Calls `body` with the array; the pointers are valid only during the call.
    mutating func withNameValues<R>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        // Pointers are made only now: appending may have moved `bytes`.
        var pointers = nameValues  // taken out, so the closure below does not overlap `self`
        nameValues = []
        pointers.removeAll(keepingCapacity: true)
        pointers.reserveCapacity(max(entries.count, 1))
        let entries = self.entries
        bytes.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress!
            for entry in entries {
                pointers.append(nghttp2_nv(name: base + entry.name, value: base + entry.value,
                                           namelen: entry.nameCount, valuelen: entry.valueCount, flags: entry.flags))
            }
        }
        defer { nameValues = pointers }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
    }
}
