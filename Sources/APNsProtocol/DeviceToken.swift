/// A device token: the bytes APNs addresses a device by.
///
/// Apple says not to hard-code the size (32 bytes is typical; up to 100 are seen), and tokens
/// arrive in several text forms: plain hex, hex in groups of 8 separated by spaces, and the
/// old `NSData` description `<c9d4c07c fbbc26d6 ...>`. Those are normalised; anything else is
/// refused with a reason, notably the iOS 13 `{length = 32, bytes = 0x... }` form, which is
/// truncated with "..." and cannot be recovered.
public struct DeviceToken: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Apple's tokens are 32 bytes today; longer ones have been seen, up to 100.
    public static let maximumLength = 100
    /// Shorter than this is certainly not a token (a typo, a test value cut short).
    public static let minimumLength = 8

    public init(bytes: [UInt8]) throws {
        guard bytes.count >= Self.minimumLength, bytes.count <= Self.maximumLength else {
            throw DeviceTokenError("is \(bytes.count) bytes; device tokens are \(Self.minimumLength) to \(Self.maximumLength) bytes (usually 32)")
        }
        self.bytes = bytes
    }

    /// Parses any of the text forms described above.
    public init(parsing text: String) throws {
        // One pass over the bytes, no String searching: the mock gateway parses a token per
        // request, the sender one per line, so this is on the hot path of both.
        var hexDigits: [UInt8] = []
        hexDigits.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                continue
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
                hexDigits.append(byte)
            default:
                if Self.isIOS13Description(text) {
                    throw DeviceTokenError("is in the iOS 13 description form ({length = ..., bytes = 0x...}), which is truncated; send the token as hex from the app (map each byte to %02x)")
                }
                throw DeviceTokenError("contains '\(Character(Unicode.Scalar(byte)))', which is not a hex digit")
            }
        }
        guard !hexDigits.isEmpty else { throw DeviceTokenError("is empty") }
        guard hexDigits.count % 2 == 0 else {
            throw DeviceTokenError("has an odd number of hex digits (\(hexDigits.count)); a digit is missing")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hexDigits.count / 2)
        var index = 0
        while index < hexDigits.count {
            bytes.append(Self.nibble(hexDigits[index]) << 4 | Self.nibble(hexDigits[index + 1]))
            index += 2
        }
        try self.init(bytes: bytes)
    }

    /// Plain hex digits only (the provider API's path), nil for anything else: one pass and
    /// one allocation, for the mock gateway, which reads a token per request.
    public init?(hex text: Substring.UTF8View) {
        // Read through a buffer pointer: indexing a Substring's UTF-8 view one byte at a time
        // costs a function call per byte.
        guard let bytes = text.withContiguousStorageIfAvailable(Self.decodeHex) ?? Array(text).withUnsafeBufferPointer(Self.decodeHex) else {
            return nil
        }
        try? self.init(bytes: bytes)
    }

    private static func decodeHex(_ digits: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard digits.count % 2 == 0 else { return nil }
        let values = hexValues
        let length = digits.count / 2
        var valid = true
        let bytes = [UInt8](unsafeUninitializedCapacity: length) { out, count in
            for index in 0..<length {
                let high = values[Int(digits[2 * index])], low = values[Int(digits[2 * index + 1])]
                guard high | low < 16 else { valid = false; break }
                out[index] = high << 4 | low
            }
            count = valid ? length : 0
        }
        return valid ? bytes : nil
    }

    /// Each byte's value as a hex digit, 0xFF for bytes that are not hex digits.
    private static let hexValues: [UInt8] = (0...255).map { byte in
        RequestValidator.isHexDigit(UInt8(byte)) ? nibble(UInt8(byte)) : 0xFF
    }

    /// `{length = 32, bytes = 0xc9d4c07c ... a1f0e5d4 }`: what `description` of `NSData`
    /// prints since iOS 13, with the middle cut out.
    static func isIOS13Description(_ text: String) -> Bool {
        let trimmed = text.trimmingWhitespace()
        return trimmed.hasPrefix("{") || trimmed.contains("length =") || trimmed.contains("bytes =")
    }

    /// Lower-case hex, the form the provider API's path takes.
    public var hex: String { Hex.encode(bytes) }

    public var description: String { hex }

    private static func nibble(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        default: return digit - UInt8(ascii: "A") + 10
        }
    }
}

/// Why a token was refused; `description` completes "the device token ...".
public struct DeviceTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "The device token \(reason)." }
}

/// Lower-case hex encoding without Foundation.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
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
