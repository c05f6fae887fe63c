// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
/// Apple's rule for a bundle id (apns-protocol.md §8): reverse-DNS text of the letters A-Z and
/// a-z, the digits 0-9, hyphens and periods, as the developer portal and Info.plist take it.
/// The mock applies it where a bundle id comes from a client (channel management and broadcast
/// paths), so a made-up or percent-encoded string cannot become a key of its stores.
package enum BundleIdentifier {
    /// The longest bundle id taken. Apple's glossary gives the characters, not a length; 155
    /// is App Store Connect's bound for the identifier field (our reading, §8).
    package static let maxLength = 155

    /// Whether `text` is a bundle id by the rule above: non-empty, at most `maxLength`
    /// characters, no empty label (`com..app`, a leading or trailing period).
    package static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= maxLength else { return false }
        guard bytes.allSatisfy(isAllowed) else { return false }
        return !text.split(separator: ".", omittingEmptySubsequences: false).contains { $0.isEmpty }
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}
