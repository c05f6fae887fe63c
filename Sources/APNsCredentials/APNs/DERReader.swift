// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
/// A small, bounds-checked reader for DER (the subset X.509 extensions use): definite
/// lengths only, single-byte tags, no recursion of its own.
///
/// OpenSSL has no template for Apple's private extensions, so their values are parsed here.
/// Every read checks the remaining length first; bad input becomes a `DERError` that says
/// what was wrong at which byte offset, never a trap.
package struct DERReader: Sendable {
    /// One decoded TLV.
    package struct Element: Sendable, Equatable {
        package let tag: UInt8
        /// The value bytes (without tag and length).
        package let value: ArraySlice<UInt8>
        /// Offset of the tag byte in the outermost input, for messages.
        package let offset: Int
    }

    package struct DERError: Error, Sendable, Equatable, CustomStringConvertible {
        package let description: String
    }

    package static let sequence: UInt8 = 0x30
    package static let utf8String: UInt8 = 0x0C
    package static let null: UInt8 = 0x05

    private let bytes: ArraySlice<UInt8>
    private var position: Int

    package init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    package init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    package var isAtEnd: Bool { position >= bytes.endIndex }

    /// Reads the next element; throws on a truncated or non-DER header.
    package mutating func next() throws -> Element {
        let start = position
        guard position < bytes.endIndex else { throw DERError(description: "unexpected end of data at byte \(start)") }
        let tag = bytes[position]
        guard tag & 0x1F != 0x1F else { throw DERError(description: "multi-byte tag at byte \(start) is not supported") }
        position += 1
        guard position < bytes.endIndex else { throw DERError(description: "missing length at byte \(position)") }
        let first = bytes[position]
        position += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count != 0 else { throw DERError(description: "indefinite length at byte \(start) is not DER") }
            guard count <= 4 else { throw DERError(description: "length of \(count) bytes at byte \(start) is too large") }
            guard bytes.endIndex - position >= count else { throw DERError(description: "truncated length at byte \(start)") }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[position])
                position += 1
            }
        }
        guard bytes.endIndex - position >= length else {
            throw DERError(description: "element at byte \(start) declares \(length) bytes but only \(bytes.endIndex - position) remain")
        }
        let value = bytes[position..<(position + length)]
        position += length
        return Element(tag: tag, value: value, offset: start)
    }

    /// Reads the next element and requires `tag`; `what` names it in the message.
    package mutating func next(_ tag: UInt8, _ what: String) throws -> Element {
        let element = try next()
        guard element.tag == tag else {
            throw DERError(description: "expected \(what) (tag 0x\(Self.hex(tag))) at byte \(element.offset), found tag 0x\(Self.hex(element.tag))")
        }
        return element
    }

    /// Reads a UTF8String and checks that it is valid UTF-8.
    package mutating func utf8String(_ what: String) throws -> String {
        let element = try next(Self.utf8String, what)
        guard let text = String(validating: element.value, as: UTF8.self) else {
            throw DERError(description: "\(what) at byte \(element.offset) is not valid UTF-8")
        }
        return text
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}

/// Builds DER for the few shapes apnskit writes (Apple's topics extension, NULL values).
package enum DERWriter {
    package static func element(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        [tag] + length(value.count) + value
    }

    package static func sequence(_ children: [[UInt8]]) -> [UInt8] {
        element(DERReader.sequence, children.flatMap { $0 })
    }

    package static func utf8String(_ text: String) -> [UInt8] {
        element(DERReader.utf8String, Array(text.utf8))
    }

    /// `05 00`: the value of Apple's environment extensions.
    package static let null: [UInt8] = [DERReader.null, 0x00]

    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
