// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// Builds a `JSONValue` from bytes `JSONSyntax` has already accepted, for the payload lint:
/// straight from the bytes, keys in the order written, no Foundation objects in between. The
/// mock lints every accepted notification it records, and `JSONSerialization` (plus sorting
/// and bridging every number) cost about as much as the rest of the request.
///
/// Only for checked input: `JSONSyntax.isObject`/`isValue` bound the nesting at 64, so the
/// recursion here is bounded too; on anything else it returns nil instead of trapping.
enum JSONTreeParser {
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer)
            parser.skipSpace()
            return parser.value(depth: 0)
        }
    }

    private struct Parser: JSONByteReader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func value(depth: Int) -> JSONValue? {
            guard depth <= JSONSyntax.maximumDepth, let byte = peek else { return nil }
            switch byte {
            case UInt8(ascii: "{"): return object(depth: depth + 1)
            case UInt8(ascii: "["): return array(depth: depth + 1)
            case UInt8(ascii: "\""): return string().map(JSONValue.string)
            case UInt8(ascii: "t"): index += 4; return .bool(true)
            case UInt8(ascii: "f"): index += 5; return .bool(false)
            case UInt8(ascii: "n"): index += 4; return .null
            default: return number()
            }
        }

        mutating func object(depth: Int) -> JSONValue? {
            index += 1
            var members: [(String, JSONValue)] = []
            skipSpace()
            if peek == UInt8(ascii: "}") { index += 1; return .object(members) }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard peek == UInt8(ascii: ":") else { return nil }
                index += 1
                skipSpace()
                guard let member = value(depth: depth) else { return nil }
                members.append((key, member))
                skipSpace()
                if peek == UInt8(ascii: ",") { index += 1; continue }
                guard peek == UInt8(ascii: "}") else { return nil }
                index += 1
                return .object(members)
            }
        }

        mutating func array(depth: Int) -> JSONValue? {
            index += 1
            var items: [JSONValue] = []
            skipSpace()
            if peek == UInt8(ascii: "]") { index += 1; return .array(items) }
            while true {
                skipSpace()
                guard let item = value(depth: depth) else { return nil }
                items.append(item)
                skipSpace()
                if peek == UInt8(ascii: ",") { index += 1; continue }
                guard peek == UInt8(ascii: "]") else { return nil }
                index += 1
                return .array(items)
            }
        }

        /// A string's text with its escapes decoded; a lone surrogate becomes U+FFFD.
        mutating func string() -> String? {
            index += 1
            var out: [UInt8] = []
            while let byte = peek {
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = peek else { return nil }
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        guard var scalar = hex4() else { return nil }
                        if (0xD800...0xDBFF).contains(scalar), peek == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") {
                            let saved = index
                            index += 2
                            if let low = hex4(), (0xDC00...0xDFFF).contains(low) {
                                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                index = saved
                            }
                        }
                        out += Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
                    default: out.append(escaped)
                    }
                default: out.append(byte)
                }
            }
            return nil
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        /// An integer when written as one and it fits; otherwise a Double.
        mutating func number() -> JSONValue? {
            let start = index
            var integral = true
            while let byte = peek, byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { integral = false }
                index += 1
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if integral, let value = Int(text) { return .int(value) }
            return Double(text).map(JSONValue.double)
        }
    }
}

extension APNsPayloadLint {
    /// The tree the lint reads, for tests that hold the parser to Foundation's.
    package static func parseForTests(_ bytes: [UInt8]) -> JSONValue? {
        JSONValue.parseObject(bytes)
    }
}
