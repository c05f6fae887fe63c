// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Where a credential comes from, beyond a path: `-` (standard input) and `env:VAR` (an
/// environment variable), because CI systems hand secrets over as variables and a check
/// should not have to write a private key to disk to read it.
///
/// The spelling follows `--passin`'s `env:VAR`. A file whose name really starts with `env:`
/// is given as `./env:NAME`.
package enum CredentialInput {
    static let environmentPrefix = "env:"

    /// The variable's name for `env:VAR`, nil for anything else (paths and `-`).
    package static func environmentVariable(_ path: String) -> String? {
        guard path.hasPrefix(environmentPrefix) else { return nil }
        return String(path.dropFirst(environmentPrefix.count))
    }

    /// True for inputs that have no file name (stdin, a variable): nothing can be read from
    /// their name, such as a `.p8` key id.
    package static func isNameless(_ path: String) -> Bool {
        path == "-" || environmentVariable(path) != nil
    }

    /// The bytes of `env:VAR`, with the same size bound as a file.
    static func readEnvironment(_ name: String, label: String) throws -> [UInt8] {
        guard !name.isEmpty else {
            throw CredentialError(.unreadable, "env: needs a variable name, as in env:APNS_P12_BASE64.")
        }
        guard let value = ProcessInfo.processInfo.environment[name] else {
            throw CredentialError(.unreadable, "\(label) is not set; export it (for example from a CI secret) or give a file.")
        }
        let bytes = Array(value.utf8)
        guard bytes.count <= CredentialFile.maximumSize else {
            throw CredentialError(.unreadable, "\(label) is larger than \(CredentialFile.maximumSize / 1_048_576) MiB; that is not a credential.")
        }
        guard bytes.contains(where: { !isWhitespace($0) }) else {
            throw CredentialError(.unreadable, "\(label) is empty.")
        }
        return bytes
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

/// How a credential's bytes are wrapped.
package enum CredentialDecoding: Sendable {
    /// PEM, DER or PKCS#12 as they are; base64 text holding one of them is recognised and
    /// unwrapped too.
    case automatic
    /// The input must be base64 (`--base64`): how CI secret variables usually hold a `.p12`.
    case base64
}

/// Base64-wrapped credentials: `base64 -w0 Certificates.p12` is what GitHub's and GitLab's
/// documentation tell people to store in a secret variable, since variables hold text.
enum Base64Credential {
    /// Decodes standard base64 (RFC 4648 §4): line breaks and spaces are ignored (`base64`
    /// wraps at 76 columns unless told `-w0`), padding is optional. Nil when any other
    /// character appears or the length cannot be base64.
    static func decode(_ bytes: [UInt8]) -> [UInt8]? {
        var text = bytes.filter { !CredentialInput.isWhitespace($0) }
        while text.last == UInt8(ascii: "=") { text.removeLast() }
        guard !text.isEmpty, text.count % 4 != 1, text.allSatisfy(isAlphabet) else { return nil }
        text += Array(repeating: UInt8(ascii: "="), count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: Data(text)).map(Array.init)
    }

    static func isAlphabet(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
    }

    /// The credential inside `bytes`: decoded when `--base64` says so (or it must be), or
    /// when `.automatic` finds base64 text holding a credential; otherwise the bytes as given.
    static func unwrap(_ bytes: [UInt8], label: String, decoding: CredentialDecoding) throws -> [UInt8] {
        switch decoding {
        case .base64:
            guard let decoded = decode(bytes), !decoded.isEmpty else {
                throw CredentialError(.unreadable, "\(label) is not base64 text (--base64); store the file as `base64 -w0 FILE` gives it, or drop --base64.")
            }
            return decoded
        case .automatic:
            guard !PEMScanner.looksLikePEM(bytes), bytes.first != 0x30, let decoded = decode(bytes), looksLikeCredential(decoded) else {
                return bytes
            }
            return decoded
        }
    }

    /// What base64 text must decode to before `.automatic` treats it as a wrapper: PEM text
    /// or a DER SEQUENCE (certificate, key, CSR, PKCS#12). A plain file that merely happens
    /// to be base64 characters is left to the usual "not a credential" sentence.
    static func looksLikeCredential(_ decoded: [UInt8]) -> Bool {
        decoded.first == 0x30 || PEMScanner.looksLikePEM(decoded)
    }
}
