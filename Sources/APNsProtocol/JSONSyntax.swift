// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// A strict JSON syntax check (RFC 8259) over bytes, with a nesting limit so hostile input
/// cannot exhaust the stack. It validates; it builds nothing, so checking a million payloads
/// allocates nothing.
package enum JSONSyntax {
    package static let maximumDepth = 64

    /// True when `bytes` is exactly one JSON object, optionally surrounded by white space.
    package static func isObject(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer)
            parser.skipSpace()
            guard parser.peek == UInt8(ascii: "{"), parser.value(depth: 0) else { return false }
            parser.skipSpace()
            return parser.index == buffer.count
        }
    }

    /// True when `bytes` is one JSON value of any kind.
    package static func isValue(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer)
            parser.skipSpace()
            guard parser.value(depth: 0) else { return false }
            parser.skipSpace()
            return parser.index == buffer.count
        }
    }

    private struct Parser: JSONByteReader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += count
            return true
        }

        mutating func value(depth: Int) -> Bool {
            guard depth < JSONSyntax.maximumDepth, let byte = peek else { return false }
            switch byte {
            case UInt8(ascii: "{"): return object(depth: depth + 1)
            case UInt8(ascii: "["): return array(depth: depth + 1)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        mutating func object(depth: Int) -> Bool {
            index += 1
            skipSpace()
            if peek == UInt8(ascii: "}") { index += 1; return true }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\""), string() else { return false }
                skipSpace()
                guard peek == UInt8(ascii: ":") else { return false }
                index += 1
                skipSpace()
                guard value(depth: depth) else { return false }
                skipSpace()
                if peek == UInt8(ascii: ",") { index += 1; continue }
                if peek == UInt8(ascii: "}") { index += 1; return true }
                return false
            }
        }

        mutating func array(depth: Int) -> Bool {
            index += 1
            skipSpace()
            if peek == UInt8(ascii: "]") { index += 1; return true }
            while true {
                skipSpace()
                guard value(depth: depth) else { return false }
                skipSpace()
                if peek == UInt8(ascii: ",") { index += 1; continue }
                if peek == UInt8(ascii: "]") { index += 1; return true }
                return false
            }
        }

        mutating func string() -> Bool {
            index += 1
            while let byte = peek {
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return true
                case UInt8(ascii: "\\"):
                    guard let escaped = peek else { return false }
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        continue
                    case UInt8(ascii: "u"):
                        for _ in 0..<4 {
                            guard let hex = peek, RequestValidator.isHexDigit(hex) else { return false }
                            index += 1
                        }
                    default: return false
                    }
                case 0..<0x20: return false
                default: continue
                }
            }
            return false
        }

        mutating func number() -> Bool {
            let start = index
            if peek == UInt8(ascii: "-") { index += 1 }
            guard let first = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
            if first == UInt8(ascii: "0") { index += 1 } else { digits() }
            if peek == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { return false }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { return false }
            }
            return index > start
        }

        @discardableResult
        mutating func digits() -> Int {
            var count = 0
            while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1; count += 1 }
            return count
        }
    }
}

/// A position in JSON bytes, shared by the syntax check and the lint's tree parser.
protocol JSONByteReader {
    var bytes: UnsafeBufferPointer<UInt8> { get }
    var index: Int { get set }
}

extension JSONByteReader {
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// RFC 8259's white space: space, tab, line feed, carriage return.
    mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }
}
