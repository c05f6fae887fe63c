// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// A device token: the bytes APNs addresses a device by, or a Live Activity push token or
/// push-to-start token, which the provider API takes in the same place (`/3/device/<hex>`).
///
/// Apple says not to hard-code the size (apns-protocol.md §6: device tokens are variable length,
/// 32 bytes today, up to 100 announced; Live Activity tokens are longer, 80 bytes seen), and tokens
/// arrive in several text forms: plain hex, hex in groups of 8 separated by spaces, and the
/// old `NSData` description `<c9d4c07c fbbc26d6 ...>`. Those are normalised; anything else is
/// refused with a reason, notably the iOS 13 `{length = 32, bytes = 0x... }` form, which is
/// truncated with "..." and cannot be recovered.
public struct APNsDeviceToken: Sendable, Hashable, CustomStringConvertible {
    /// The token's bytes, as the device handed them to the app.
    public let bytes: [UInt8]

    /// The longest token of any kind taken (apns-protocol.md §6): the 100 bytes Apple announced
    /// device tokens may grow to, which also holds the 80-byte Live Activity and push-to-start
    /// tokens; one bound for every kind, because a token's kind is not in its bytes.
    public static let maximumLength = 100
    /// Shorter than this is certainly not a token (a typo, a test value cut short).
    public static let minimumLength = 8

    /// A token from its bytes (an app that stores them raw); throws for a length no token of any kind
    /// has, so a truncated or padded value is caught here and not answered BadDeviceToken.
    public init(bytes: [UInt8]) throws {
        guard bytes.count >= Self.minimumLength, bytes.count <= Self.maximumLength else {
            throw APNsDeviceTokenError("is \(bytes.count) bytes; tokens of every kind (device, Live Activity, push-to-start) are \(Self.minimumLength) to \(Self.maximumLength) bytes (device tokens usually 32, Live Activity tokens 80)")
        }
        self.bytes = bytes
    }

    /// Parses any of the text forms described above.
    public init(parsing text: String) throws {
        if let parsed = try text.utf8.withContiguousStorageIfAvailable({ try APNsDeviceToken(parsingUTF8: $0) }) {
            self = parsed
        } else {
            self = try Array(text.utf8).withUnsafeBufferPointer { try APNsDeviceToken(parsingUTF8: $0) }
        }
    }

    /// `init(parsingUTF8:)` over an array slice (a line of a token file).
    package init(parsingUTF8 text: ArraySlice<UInt8>) throws {
        self = try text.withUnsafeBufferPointer { try APNsDeviceToken(parsingUTF8: $0) }
    }

    /// Parses the UTF-8 bytes of a token in any of the text forms described above, in one pass
    /// and with one allocation: the mock gateway parses a token per request and the sender one
    /// per line, so this is on the hot path of both (a batch line's bytes need no String).
    package init(parsingUTF8 text: UnsafeBufferPointer<UInt8>) throws {
        // Plain hex, nearly every line of a token file, decodes two digits a step without the
        // separator test per byte (issue 33: 1,100 instructions per line); the other forms,
        // and every refusal with its reason, take the general pass below.
        if let plain = APNsDeviceToken(hexDigits: text) {
            self = plain
            return
        }
        var high: UInt8 = 0
        var digitCount = 0
        var invalid: UInt8?
        // Written straight into the array's storage: appending checked capacity per byte.
        let bytes = [UInt8](unsafeUninitializedCapacity: text.count / 2) { storage, count in
            count = 0
            let table = Self.nibbles
            for byte in text {
                // A hex digit (the one table `init(hexDigits:)` reads too), else a separator.
                let nibble = table[Int(byte)]
                if nibble == 0x10 {
                    if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
                        || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                        continue
                    }
                    invalid = byte
                    return
                }
                if digitCount & 1 == 0 {
                    high = nibble
                } else {
                    // At most count / 2 pairs: every pair takes two of the text's bytes.
                    storage[count] = high << 4 | nibble
                    count += 1
                }
                digitCount += 1
            }
        }
        if let byte = invalid {
            if Self.isIOS13Description(String(decoding: text, as: UTF8.self)) {
                throw APNsDeviceTokenError("is in the iOS 13 description form ({length = ..., bytes = 0x...}), which is truncated; send the token as hex from the app (map each byte to %02x)")
            }
            throw APNsDeviceTokenError("contains '\(Character(Unicode.Scalar(byte)))', which is not a hex digit")
        }
        guard digitCount > 0 else { throw APNsDeviceTokenError("is empty") }
        guard digitCount & 1 == 0 else {
            throw APNsDeviceTokenError("has an odd number of hex digits (\(digitCount)); a digit is missing")
        }
        try self.init(bytes: bytes)
    }

    /// Plain hex digits only (the provider API's path), nil for anything else; for the mock
    /// gateway, which reads a token per request.
    package init?(hex text: Substring.UTF8View) {
        // Read through a buffer pointer: indexing a Substring's UTF-8 view one byte at a time
        // costs a function call per byte.
        guard let token = text.withContiguousStorageIfAvailable(Self.init(hexDigits:)) ?? Array(text).withUnsafeBufferPointer(Self.init(hexDigits:)) else {
            return nil
        }
        self = token
    }

    /// Plain hex digits, an even number of them, `minimumLength` to `maximumLength` bytes'
    /// worth; nil for anything else. Decoded straight into the token's one array, eight digits
    /// at a time (`decodeEightDigits`) and the last few through a table: the mock reads a token
    /// per request and `push` one per line; a digit at a time cost some 16 instructions a byte
    /// (docs/benchmarks.md, issue 33).
    init?(hexDigits digits: UnsafeBufferPointer<UInt8>) {
        let count = digits.count / 2
        guard digits.count % 2 == 0, count >= Self.minimumLength, count <= Self.maximumLength else { return nil }
        var valid = true
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            let source = UnsafeRawPointer(digits.baseAddress!), target = UnsafeMutableRawPointer(out.baseAddress!)
            var allHex = true
            var done = 0  // bytes written
            while count - done >= 4 {
                let word = UInt64(littleEndian: source.loadUnaligned(fromByteOffset: 2 &* done, as: UInt64.self))
                let decoded = Self.decodeEightDigits(word)
                allHex = allHex && decoded.valid
                target.storeBytes(of: decoded.bytes.littleEndian, toByteOffset: done, as: UInt32.self)
                done &+= 4
            }
            // Through the table's buffer: a UInt8 always indexes its 256 entries.
            Self.nibbles.withUnsafeBufferPointer { table in
                var bad: UInt8 = 0
                for index in done..<count {
                    let high = table[Int(digits[2 &* index])], low = table[Int(digits[2 &* index &+ 1])]
                    bad |= (high | low) & 0x10
                    out[index] = high << 4 | low & 0x0F
                }
                valid = allHex && bad == 0
            }
            initialized = count
        }
        guard valid else { return nil }
        self.bytes = bytes
    }

    /// Eight ASCII hex digits, the first in the lowest byte of `word` (as loaded little-endian),
    /// as four bytes, the first in the lowest byte; `valid` is false unless all eight are hex
    /// digits (either case). Each byte of the word is one lane: a lane below 0x80 plus a
    /// constant below 0x80 carries into no other lane, so one addition tests all eight lanes
    /// against a bound at once (its top bit says which side of the bound the lane is on).
    @inline(__always)
    static func decodeEightDigits(_ word: UInt64) -> (bytes: UInt32, valid: Bool) {
        let ones: UInt64 = 0x0101_0101_0101_0101, tops: UInt64 = 0x8080_8080_8080_8080
        // A lane's top bit set where it is >= low, and where it is <= high.
        @inline(__always) func atLeast(_ lanes: UInt64, _ low: UInt64) -> UInt64 { lanes &+ ones &* (0x80 &- low) }
        @inline(__always) func atMost(_ lanes: UInt64, _ high: UInt64) -> UInt64 { ~(lanes &+ ones &* (0x7F &- high)) }
        let folded = word | (ones &* 0x20)  // 'A'...'F' as 'a'...'f'
        let digit = atLeast(word, 0x30) & atMost(word, 0x39)
        let letter = atLeast(folded, 0x61) & atMost(folded, 0x66)
        let valid = word & tops == 0 && (digit | letter) & tops == tops
        // A digit's value is its low four bits; a letter's (bit 6 set) those plus 9.
        let nibbles = (word & (ones &* 0x0F)) &+ (word >> 6 & ones) &* 9
        // Lane 2k becomes nibble 2k << 4 | nibble 2k+1; then the even lanes are packed together.
        let pairs = (nibbles << 4 | nibbles >> 8) & 0x00FF_00FF_00FF_00FF
        let packed = (pairs | pairs >> 8) & 0x0000_FFFF_0000_FFFF
        return (UInt32(truncatingIfNeeded: packed | packed >> 16), valid)
    }

    private static let nibbles: [UInt8] = (0...255).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(byte) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(byte) - UInt8(ascii: "A") + 10
        default: 0x10
        }
    }

    /// `{length = 32, bytes = 0xc9d4c07c ... a1f0e5d4 }`: what `description` of `NSData`
    /// prints since iOS 13, with the middle cut out.
    static func isIOS13Description(_ text: String) -> Bool {
        let trimmed = text.trimmingWhitespace()
        return trimmed.hasPrefix("{") || trimmed.contains("length =") || trimmed.contains("bytes =")
    }

    /// Lower-case hex, the form the provider API's path takes.
    public var hex: String { Hex.encode(bytes) }

    /// The lower-case hex (`hex`): what logs and results print, never the raw bytes.
    public var description: String { hex }
}

/// Why a token was refused; `description` completes "the device token ...".
public struct APNsDeviceTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The rest of the sentence after "the device token": what is wrong with the text given.
    public let reason: String
    /// An error whose sentence is "The device token `reason`."
    public init(_ reason: String) { self.reason = reason }
    /// The whole sentence, ready to show: "The device token is ...".
    public var description: String { "The device token \(reason)." }
}

/// Lower-case hex encoding without Foundation.
package enum Hex {
    /// The lower-case hex digit for `nibble` (0-15), by arithmetic.
    @inline(__always)
    static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble &+ UInt8(ascii: "0") : nibble &+ (UInt8(ascii: "a") &- 10)
    }

    /// Each byte's two digits as one `UInt16` whose little-endian bytes are the high digit,
    /// then the low: a load and a store per byte, where working out each digit cost two
    /// compares and selects (issue 33: a device path, a results line and an `apns-id` per
    /// notification are written here).
    private static let digitPairs: [UInt16] = (0...255).map { byte in
        UInt16(digit(UInt8(byte >> 4))) | UInt16(digit(UInt8(byte & 0x0F))) << 8
    }

    /// Writes each of `bytes` as two digits from `offset` on in `out`, which must have room.
    @inline(__always)
    static func write(_ bytes: UnsafeRawBufferPointer, to out: UnsafeMutableRawPointer, at offset: Int) {
        digitPairs.withUnsafeBufferPointer { pairs in
            for (index, byte) in bytes.enumerated() {
                out.storeBytes(of: pairs[Int(byte)].littleEndian, toByteOffset: offset &+ 2 &* index, as: UInt16.self)
            }
        }
    }

    package static func encode(_ bytes: [UInt8]) -> String { encode(bytes, after: "") }

    /// `prefix` (ASCII) followed by the bytes in hex, e.g. a device path: one String, where
    /// `prefix + encode(bytes)` made two.
    package static func encode(_ bytes: [UInt8], after prefix: StaticString) -> String {
        let length = prefix.utf8CodeUnitCount + bytes.count * 2
        guard length > 0 else { return "" }
        // Written straight into the String's storage: one allocation, no UTF-8 validation
        // (every byte is an ASCII digit).
        return String(unsafeUninitializedCapacity: length) { buffer in
            let out = UnsafeMutableRawPointer(buffer.baseAddress!)
            prefix.withUTF8Buffer { text in
                if let start = text.baseAddress { out.copyMemory(from: start, byteCount: text.count) }
            }
            bytes.withUnsafeBytes { write($0, to: out, at: prefix.utf8CodeUnitCount) }
            return length
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
