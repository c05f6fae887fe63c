// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
/// What a profile's property list must look like before Foundation's parser is given it.
///
/// Apple's profiles are XML property lists a few kilobytes long, nested three levels deep
/// (dictionary, Entitlements, an array of keychain groups). swift-foundation's
/// `PropertyListDecoder` recurses once per level and has no limit: about 5,000 nested arrays
/// overflow the main thread's 8 MB stack (SIGSEGV in `XMLPlistScanner.scanArray`), and far
/// fewer a secondary thread's. It also reads binary and OpenStep lists, which no profile uses.
/// Refusing those here keeps the parser on inputs shaped like profiles.
package enum PropertyListBounds {
    /// Larger property lists are refused (Apple's largest, with 100s of devices and dozens of
    /// developer certificates, stay well under a megabyte).
    package static let maximumSize = 4 * 1024 * 1024
    /// Deeper nesting of `<dict>`/`<array>` is refused.
    package static let maximumDepth = 32

    package static func check(_ bytes: [UInt8], label: String) throws {
        guard bytes.count <= maximumSize else {
            throw APNsCredentialError(.unreadable, "\(label) holds a property list of \(bytes.count) bytes, more than the \(maximumSize / 1_048_576) MiB apnskit reads; it is not a provisioning profile.")
        }
        let start = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        guard start.starts(with: Array("<?xml".utf8)) || start.starts(with: Array("<plist".utf8)) || start.starts(with: Array("<!DOCTYPE".utf8)) else {
            throw APNsCredentialError(.unreadable, "\(label) does not hold an XML property list; a provisioning profile's content is XML.")
        }
        if index(after: Array("<!ENTITY".utf8), in: bytes, from: 0) != nil {
            throw APNsCredentialError(.unreadable, "\(label) holds a property list that declares XML entities, which no provisioning profile does; it is not one.")
        }
        if let depth = nestingBeyondLimit(bytes) {
            throw APNsCredentialError(.unreadable, "\(label) holds a property list nested \(depth) levels deep, more than the \(maximumDepth) apnskit reads; it is not a provisioning profile.")
        }
    }

    /// The depth reached once it passes `maximumDepth`, else nil. Counts `<dict>` and
    /// `<array>` openings (with or without attributes or whitespace before `>`) against their
    /// closings; self-closing `<dict/>` does not nest. Comments, CDATA sections, processing
    /// instructions and the DOCTYPE are skipped whole, so a closing tag hidden in one cannot
    /// cancel a real opening (10,000 levels with `<!-- </array> -->` after each opening crashed
    /// the parser before this).
    static func nestingBeyondLimit(_ bytes: [UInt8]) -> Int? {
        var depth = 0
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else { index += 1; continue }
            if let skipped = skipMarkup(bytes, at: index) {
                index = skipped
                continue
            }
            let closing = index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/")
            let nameStart = index + (closing ? 2 : 1)
            var nameEnd = nameStart
            while nameEnd < bytes.count, isNameByte(bytes[nameEnd]) { nameEnd += 1 }
            let tagEnd = bytes[nameEnd...].firstIndex(of: UInt8(ascii: ">")) ?? bytes.count
            let name = bytes[nameStart..<nameEnd]
            if name.elementsEqual("dict".utf8) || name.elementsEqual("array".utf8) {
                if closing {
                    depth = max(0, depth - 1)
                } else if !(tagEnd > nameEnd && tagEnd < bytes.count && bytes[tagEnd - 1] == UInt8(ascii: "/")) {
                    depth += 1
                    if depth > maximumDepth { return depth }
                }
            }
            index = max(nameEnd, index + 1)
        }
        return nil
    }

    /// Where the comment, CDATA section, processing instruction or declaration starting at
    /// `index` ends (the index after it), or nil when an element tag starts there.
    private static func skipMarkup(_ bytes: [UInt8], at index: Int) -> Int? {
        let kinds: [(open: String, close: String)] = [("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>"), ("<!", ">")]
        for kind in kinds where bytes[index...].starts(with: kind.open.utf8) {
            return Self.index(after: Array(kind.close.utf8), in: bytes, from: index + kind.open.utf8.count) ?? bytes.count
        }
        return nil
    }

    /// The index after the first `marker` at or after `start`, or nil when there is none.
    private static func index(after marker: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + marker.count <= bytes.count {
            if bytes[index] == marker[0] && bytes[index..<(index + marker.count)].elementsEqual(marker) { return index + marker.count }
            index += 1
        }
        return nil
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
    }
}
