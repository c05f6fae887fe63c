// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Finds the PEM blocks in a file and says what each one is, without decoding them.
///
/// OpenSSL's PEM readers take the first block of the kind asked for and silently skip the
/// rest; a combined PEM or a chain file needs every block, in order, and a clear error when a
/// block is cut off (the most common damage: a copy-paste that lost the END line).
///
/// This is the one place PEM text is read, so it takes what editors and other tools write:
/// a UTF-8 byte order mark (Windows editors, secret stores; also mid-file after `cat`), CRLF
/// line ends, trailing spaces, no final newline, "Bag Attributes" and `x509 -text` dumps
/// before a block, any base64 line width. Each block's `text` is rebuilt clean (trimmed lines,
/// LF ends) so OpenSSL's strict reader never sees those variations.
package struct PEMBlock: Sendable, Equatable {
    /// The word(s) after BEGIN: `CERTIFICATE`, `PRIVATE KEY`, `RSA PRIVATE KEY`, ...
    package let label: String
    /// The block's full text, BEGIN line through END line, ready for OpenSSL's PEM readers.
    package let text: [UInt8]
    /// The 1-based line where the block begins, for messages.
    package let line: Int
    /// True for `ENCRYPTED PRIVATE KEY` and for legacy `Proc-Type: 4,ENCRYPTED` blocks.
    package let isEncrypted: Bool
    /// friendlyName / localKeyID from the "Bag Attributes" `openssl pkcs12` prints above a block.
    package var attributes = BagAttributes()

    package enum Kind: Sendable, Equatable {
        case certificate, privateKey, certificateRequest, publicKey, pkcs12, other
    }

    package var kind: Kind { Self.kind(of: label) }

    /// What a PEM label names, for a label seen without its block.
    package static func kind(of label: String) -> Kind {
        switch label {
        case "CERTIFICATE", "X509 CERTIFICATE", "TRUSTED CERTIFICATE": return .certificate
        case "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "DSA PRIVATE KEY": return .privateKey
        case "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST": return .certificateRequest
        case "PUBLIC KEY", "RSA PUBLIC KEY": return .publicKey
        case "PKCS12": return .pkcs12
        default: return .other
        }
    }
}

package enum PEMScanner {
    private static let begin = Array("-----BEGIN ".utf8)
    private static let end = Array("-----END ".utf8)
    private static let dashes = Array("-----".utf8)
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// True when the bytes contain a PEM BEGIN line (text with or without leading notes).
    package static func looksLikePEM(_ bytes: [UInt8]) -> Bool {
        firstIndex(of: begin, in: bytes[...]) != nil
    }

    /// All blocks in order. Throws `unreadable` for a block without its END line, an END
    /// that does not match its BEGIN, or a block with no base64 body.
    package static func blocks(in bytes: [UInt8], label fileLabel: String) throws -> [PEMBlock] {
        var result: [PEMBlock] = []
        let lines = splitLines(bytes)
        var index = 0
        var previousEnd = 0
        while index < lines.count {
            let line = trimmed(lines[index].bytes)
            guard line.starts(with: begin), line.count > begin.count + dashes.count, line.suffix(dashes.count).elementsEqual(dashes) else {
                index += 1
                continue
            }
            let label = String(decoding: line.dropFirst(begin.count).dropLast(dashes.count), as: UTF8.self)
            let attributes = bagAttributes(lines[previousEnd..<index].map { trimmed($0.bytes) })
            let startLine = index
            var encrypted = label == "ENCRYPTED PRIVATE KEY"
            var bodyLines = 0
            var closed = false
            index += 1
            while index < lines.count {
                let inner = trimmed(lines[index].bytes)
                if inner.starts(with: end) {
                    let endLabel = String(decoding: inner.dropFirst(end.count).prefix { $0 != UInt8(ascii: "-") }, as: UTF8.self)
                    guard endLabel == label else {
                        throw CredentialError(.unreadable, "\(fileLabel): the PEM block '\(label)' at line \(startLine + 1) ends with 'END \(endLabel)' at line \(index + 1); the file is damaged.")
                    }
                    closed = true
                    break
                }
                if inner.starts(with: begin) { break }
                if inner.starts(with: Array("Proc-Type:".utf8)), String(decoding: inner, as: UTF8.self).contains("ENCRYPTED") { encrypted = true }
                if !inner.isEmpty && !inner.contains(UInt8(ascii: ":")) { bodyLines += 1 }
                index += 1
            }
            guard closed else {
                throw CredentialError(.unreadable, "\(fileLabel) is truncated: the PEM block '\(label)' that starts at line \(startLine + 1) has no END line; download or export the file again.")
            }
            guard bodyLines > 0 else {
                throw CredentialError(.unreadable, "\(fileLabel): the PEM block '\(label)' at line \(startLine + 1) is empty.")
            }
            var text: [UInt8] = []
            for blockLine in lines[startLine...index] {
                text += trimmed(blockLine.bytes)
                text.append(UInt8(ascii: "\n"))
            }
            var block = PEMBlock(label: label, text: text, line: startLine + 1, isEncrypted: encrypted)
            block.attributes = attributes
            result.append(block)
            index += 1
            previousEnd = index
        }
        return result
    }

    private struct Line { let start: Int; let end: Int; let bytes: ArraySlice<UInt8> }

    private static func splitLines(_ bytes: [UInt8]) -> [Line] {
        var lines: [Line] = []
        var start = 0
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            lines.append(Line(start: start, end: offset + 1, bytes: bytes[start..<offset]))
            start = offset + 1
        }
        if start < bytes.count { lines.append(Line(start: start, end: bytes.count, bytes: bytes[start...])) }
        return lines
    }

    /// The value of a header line (`DEK-Info: DES-CBC,...`) in the first block, or nil.
    package static func header(_ name: String, in bytes: [UInt8]) -> String? {
        let prefix = Array((name + ":").utf8)
        for line in splitLines(bytes) {
            let text = trimmed(line.bytes)
            if text.starts(with: end) { return nil }
            if text.starts(with: prefix) {
                return String(decoding: trimmed(text.dropFirst(prefix.count)), as: UTF8.self)
            }
        }
        return nil
    }

    /// `friendlyName: Push A` and `localKeyID: 01 AB ...` from the lines before a block.
    private static func bagAttributes(_ lines: [ArraySlice<UInt8>]) -> BagAttributes {
        var name: String?
        var keyID: [UInt8]?
        for line in lines {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("friendlyName:") {
                name = text.dropFirst("friendlyName:".count).trimmingCharacters(in: .whitespaces)
            } else if text.hasPrefix("localKeyID:") {
                let digits = text.dropFirst("localKeyID:".count).split(separator: " ")
                let bytes = digits.compactMap { UInt8($0, radix: 16) }
                if bytes.count == digits.count { keyID = bytes }
            }
        }
        return BagAttributes(friendlyName: name, localKeyID: keyID)
    }

    private static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = line
        while slice.starts(with: byteOrderMark) { slice = slice.dropFirst(byteOrderMark.count) }
        while let last = slice.last, last == 0x0D || last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        return slice
    }

    private static func firstIndex(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var i = haystack.startIndex
        while i <= haystack.endIndex - needle.count {
            if haystack[i] == needle[0] && haystack[i..<i + needle.count].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
