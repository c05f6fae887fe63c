// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Testing

@Suite("Device tokens in every form met in the wild")
struct DeviceTokenTests {
    let hex = "c9d4c07cfbbc26d6ef87a44d53e1983831b5f8eb4d7b6e3a27e6c9b2a1f0e5d4"

    @Test("Plain hex, upper case, groups of 8, and the NSData description normalise to the same token")
    func forms() throws {
        let grouped = stride(from: 0, to: 64, by: 8).map { i in String(hex.dropFirst(i).prefix(8)) }.joined(separator: " ")
        for text in [hex, hex.uppercased(), grouped, "<\(grouped)>", "  \(hex)\n"] {
            #expect(try APNsDeviceToken(parsing: text).hex == hex)
        }
        #expect(try APNsDeviceToken(parsing: hex).bytes.count == 32)
    }

    @Test("The iOS 13 description form is refused with the reason")
    func ios13Form() {
        let error = #expect(throws: APNsDeviceTokenError.self) { try APNsDeviceToken(parsing: "{length = 32, bytes = 0xc9d4c07c fbbc26d6 ... a1f0e5d4 }") }
        #expect(error?.description.contains("iOS 13") == true)
        #expect(error?.description.contains("truncated") == true)
    }

    @Test("Non-hex, odd length, too short, too long are refused", arguments: ["xyz0", "abc", "abcd", String(repeating: "ab", count: 101), ""])
    func refused(text: String) {
        #expect(throws: APNsDeviceTokenError.self) { try APNsDeviceToken(parsing: text) }
    }

    @Test("The provider API's path form: plain hex only, either case")
    func pathForm() {
        #expect(APNsDeviceToken(hex: Substring(hex).utf8)?.hex == hex)
        #expect(APNsDeviceToken(hex: Substring(hex.uppercased()).utf8)?.hex == hex)
        #expect(APNsDeviceToken(hex: "/3/device/\(hex)".dropFirst(10).utf8)?.hex == hex)
        // The bounds of `minimumLength` and `maximumLength`, in the path form too.
        for count in [8, 100] { #expect(APNsDeviceToken(hex: Substring(String(repeating: "aB", count: count)).utf8)?.bytes.count == count) }
        for text in ["xyz0", "abc", "abcd", String(repeating: "ab", count: 7), String(repeating: "ab", count: 101), "", "<\(hex)>",
                     hex + " ", hex.dropLast(1) + "g", "g" + hex.dropFirst(1), String(hex.dropLast(2)) + "0\u{0}"] {
            #expect(APNsDeviceToken(hex: Substring(text).utf8) == nil, "\(text)")
        }
    }

    @Test("Longer tokens than 32 bytes are accepted (Apple: do not hard-code the size)")
    func longTokens() throws {
        #expect(try APNsDeviceToken(parsing: String(repeating: "0a", count: 100)).bytes.count == 100)
    }

    /// The digits' bytes, one digit at a time: what the decoder eight digits at a time must equal.
    static func reference(_ digits: [UInt8]) -> [UInt8]? {
        func nibble(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    static func parse(_ digits: [UInt8]) -> [UInt8]? {
        digits.withUnsafeBufferPointer { try? APNsDeviceToken(parsingUTF8: $0) }?.bytes
    }

    @Test("Hex decoded eight digits at a time: every byte value in every position of a 64-digit token is taken or refused as one digit at a time would")
    func everyByteEveryPosition() {
        let base = Array(hex.utf8)
        var mismatches: [String] = []
        for position in 0..<base.count {
            for value in 0...255 {
                var digits = base
                digits[position] = UInt8(value)
                let expected = Self.reference(digits)
                // Separators (space, <, >, tab, CR, LF) leave an odd number of digits: refused too.
                if Self.parse(digits) != expected { mismatches.append("byte \(value) at \(position)") }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test("Every token length from 8 to 100 bytes (the last few digits through the table), mixed case, decodes as one digit at a time")
    func everyLength() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefABCDEF".utf8)
        for length in 8...100 {
            for _ in 0..<20 {
                let digits = (0..<(2 * length)).map { _ in alphabet.randomElement(using: &generator)! }
                #expect(Self.parse(digits) == Self.reference(digits), "\(length) bytes: \(String(decoding: digits, as: UTF8.self))")
            }
        }
        #expect(Self.parse(Array(repeating: UInt8(ascii: "a"), count: 14)) == nil, "7 bytes is too short")
        #expect(Self.parse(Array(repeating: UInt8(ascii: "a"), count: 202)) == nil, "101 bytes is too long")
    }
}

@Suite("Message ids")
struct MessageIDTests {
    @Test("apns-ids are canonical version-4 UUIDs and do not repeat")
    func canonical() {
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let id = MessageID.shared.next()
            #expect(RequestValidator.isCanonicalUUID(id))
            #expect(id == id.lowercased())
            #expect(Array(id.utf8)[14] == UInt8(ascii: "4"))
            #expect("89ab".utf8.contains(Array(id.utf8)[19]))
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
    }
}
