// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// A passphrase in memory. Its description never shows the text, so it cannot end up in a
/// log line or an error message by accident; the bytes are reachable only through
/// `withCallbackContext`, which is how OpenSSL receives them.
package struct Passphrase: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    package let bytes: [UInt8]

    package init(_ text: String) { bytes = Array(text.utf8) }
    package init(bytes: [UInt8]) { self.bytes = bytes }

    /// The empty passphrase (PKCS#12 files exported with no password).
    package static let empty = Passphrase(bytes: [])

    package var isEmpty: Bool { bytes.isEmpty }
    package var description: String { "<passphrase>" }
    package var debugDescription: String { "<passphrase>" }
}
