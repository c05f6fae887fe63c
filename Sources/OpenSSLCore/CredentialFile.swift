// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL
import Foundation

/// Everything found in one credential file, whatever its encoding.
package struct CredentialContents: Sendable {
    package enum Encoding: String, Sendable {
        case pem, der, pkcs12
    }

    package var encoding: Encoding
    package var certificates: [Certificate] = []
    /// friendlyName / localKeyId of each certificate (same order; may be shorter: none).
    package var certificateAttributes: [BagAttributes] = []
    package var privateKeys: [PrivateKey] = []
    /// friendlyName / localKeyId of each key (same order; may be shorter: none).
    package var keyAttributes: [BagAttributes] = []
    /// Keys that are encrypted and could not be opened because no passphrase was given: the
    /// rest of the file (certificates, their expiry) is still read. One sentence each.
    package var lockedKeys: [String] = []
    package var requests: [CertificateSigningRequest] = []
    /// PEM labels found but not loaded (`PUBLIC KEY`, ...), for messages and `inspect`.
    package var otherLabels: [String] = []
    /// True when any key in the file was stored encrypted.
    package var hadEncryptedKey = false

    package init(encoding: Encoding) { self.encoding = encoding }

    /// A short description of what is inside: "certificate + private key", "CSR", ...
    package var summary: String {
        var parts: [String] = []
        if certificates.count == 1 { parts.append("certificate") }
        if certificates.count > 1 { parts.append("\(certificates.count) certificates") }
        if privateKeys.count == 1 { parts.append("private key") }
        if privateKeys.count > 1 { parts.append("\(privateKeys.count) private keys") }
        if requests.count == 1 { parts.append("certificate signing request") }
        if requests.count > 1 { parts.append("\(requests.count) certificate signing requests") }
        parts += otherLabels.map { $0.lowercased() }
        return parts.isEmpty ? "nothing usable" : parts.joined(separator: " + ")
    }
}

/// Reads credential files, sniffing PEM, DER and PKCS#12 from the bytes rather than trusting
/// the file name: Apple's `.cer` is DER, a renamed `.cer` is often PEM, and a `.pem` may hold
/// a certificate, a key, or both.
package enum CredentialFile {
    /// Larger inputs are refused before parsing: no credential file comes close, and a huge
    /// "PEM" must not make us allocate without bound.
    package static let maximumSize = 16 * 1024 * 1024

    /// Reads a whole file (or standard input for `-`), with a clear error when it cannot.
    package static func readBytes(_ path: String) throws -> [UInt8] {
        try readBytes(path, limit: maximumSize, kind: "a credential file")
    }

    /// Reads at most `limit` bytes of `path` (or standard input for `-`): one byte more and it
    /// is refused, before the rest is read. `kind` names what the file should be, for the
    /// sentence ("that is not an APNs payload"). Devices and pipes are read the same way, so
    /// `/dev/zero` costs `limit` bytes, not all of memory.
    package static func readBytes(_ path: String, limit: Int, kind: String) throws -> [UInt8] {
        let label = displayName(path)
        let size = limit >= 1_048_576 ? "\(limit / 1_048_576) MiB" : (limit >= 1024 ? "\(limit / 1024) KiB" : "\(limit) bytes")
        if let variable = CredentialInput.environmentVariable(path) {
            return try CredentialInput.readEnvironment(variable, label: label)
        }
        if path == "-" {
            // At most one byte past the limit: reading to end of file first would hold all of
            // a hostile stream (100 MB piped in cost 127 MB of memory before this bound).
            let data = (try? FileHandle.standardInput.read(upToCount: limit + 1)) ?? Data()
            guard data.count <= limit else {
                throw CredentialError(.unreadable, "Standard input is larger than \(size); that is not \(kind).")
            }
            return Array(data)
        }
        // By its bytes: a name that is not UTF-8 (`RawPath`) is read like any other.
        let descriptor = open(RawPath.cString(RawPath.systemBytes(path)), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw CredentialError(.unreadable, "\(label) does not exist; check the path.") }
            throw CredentialError(.unreadable, "\(label) cannot be opened; check its permissions.")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT != S_IFDIR else {
            throw CredentialError(.unreadable, "\(label) is a folder, not \(kind).")
        }
        let data = (try? handle.read(upToCount: limit + 1)) ?? Data()
        guard data.count <= limit else {
            throw CredentialError(.unreadable, "\(label) is larger than \(size); that is not \(kind).")
        }
        guard !data.isEmpty else {
            throw CredentialError(.unreadable, "\(label) is empty.")
        }
        return Array(data)
    }

    /// The credential bytes of `path` as every command reads them: the file (or `-`, or
    /// `env:VAR`), bounded, with base64 text holding a credential unwrapped (how CI variables
    /// hold a `.p12`). One path for `check`, `inspect`, `push`, `p12 split`.
    package static func readCredential(_ path: String, decoding: CredentialDecoding = .automatic) throws -> [UInt8] {
        try Base64Credential.unwrap(readBytes(path), label: displayName(path), decoding: decoding)
    }

    /// Loads everything in `path` (a file, `-` for standard input, or `env:VAR`).
    /// - Parameter skipLockedKeys: when a PEM key is encrypted and no passphrase is at hand,
    ///   record it in `lockedKeys` and read the rest, instead of failing: a certificate's
    ///   expiry needs no passphrase (`inspect`, `check`).
    package static func load(_ path: String, passphrases: PassphraseSupplier, skipLockedKeys: Bool = false,
                            decoding: CredentialDecoding = .automatic) throws -> CredentialContents {
        try load(bytes: readBytes(path), label: displayName(path), passphrases: passphrases, skipLockedKeys: skipLockedKeys, decoding: decoding)
    }

    /// Loads everything in `bytes`; `label` names the source in messages.
    package static func load(bytes: [UInt8], label: String, passphrases: PassphraseSupplier, skipLockedKeys: Bool = false,
                            decoding: CredentialDecoding = .automatic) throws -> CredentialContents {
        OpenSSLProviders.ensureLoaded()
        let bytes = try Base64Credential.unwrap(bytes, label: label, decoding: decoding)
        if PEMScanner.looksLikePEM(bytes) {
            return try loadPEM(bytes, label: label, passphrases: passphrases, skipLockedKeys: skipLockedKeys)
        }
        return try loadDER(bytes, label: label, passphrases: passphrases)
    }

    private static func loadPEM(_ bytes: [UInt8], label: String, passphrases: PassphraseSupplier, skipLockedKeys: Bool) throws -> CredentialContents {
        var contents = CredentialContents(encoding: .pem)
        var lockedError: CredentialError?
        for block in try PEMScanner.blocks(in: bytes, label: label) {
            let where_ = "\(label) (line \(block.line))"
            switch block.kind {
            case .certificate:
                contents.certificates.append(try Certificate(pem: block.text, label: where_))
                contents.certificateAttributes.append(block.attributes)
            case .privateKey:
                do {
                    contents.privateKeys.append(try PrivateKey.decode(block.text, label: label, passphrases: passphrases))
                    contents.keyAttributes.append(block.attributes)
                } catch let error as CredentialError where skipLockedKeys && error.kind == .missingPassphrase {
                    lockedError = lockedError ?? error
                    contents.lockedKeys.append("the private key at line \(block.line) is encrypted and no passphrase was given, so it was not checked")
                }
                contents.hadEncryptedKey = contents.hadEncryptedKey || block.isEncrypted
            case .certificateRequest:
                contents.requests.append(try CertificateSigningRequest(bytes: block.text, label: where_))
            case .pkcs12, .publicKey, .other:
                contents.otherLabels.append(block.label)
            }
        }
        // Skipping a locked key is for showing the certificates next to it; a file of keys
        // only has nothing else to show, so the missing passphrase is the answer.
        if let lockedError, contents.certificates.isEmpty { throw lockedError }
        if contents.certificates.isEmpty && contents.privateKeys.isEmpty && contents.requests.isEmpty && contents.otherLabels.isEmpty {
            throw CredentialError(.unreadable, "\(label) has no complete PEM block; the file is damaged.")
        }
        return contents
    }

    private static func loadDER(_ bytes: [UInt8], label: String, passphrases: PassphraseSupplier) throws -> CredentialContents {
        if let problem = DERLength.truncation(in: bytes) {
            throw CredentialError(.unreadable, "\(label) is truncated: \(problem); download or export it again.")
        }
        if let certificate = try? Certificate(der: bytes, label: label) {
            var contents = CredentialContents(encoding: .der)
            contents.certificates = [certificate]
            return contents
        }
        if PKCS12.isPKCS12(bytes) {
            return try PKCS12.parse(bytes, label: label, passphrases: passphrases)
        }
        if let request = try? CertificateSigningRequest(bytes: bytes, label: label) {
            var contents = CredentialContents(encoding: .der)
            contents.requests = [request]
            return contents
        }
        OpenSSLErrorQueue.clear()
        if bytes.first == 0x30 {
            // Could still be a DER private key (plain or encrypted PKCS#8, PKCS#1).
            do {
                let key = try PrivateKey.decode(bytes, label: label, passphrases: passphrases)
                var contents = CredentialContents(encoding: .der)
                contents.privateKeys = [key]
                return contents
            } catch let error as CredentialError where error.kind != .unreadable {
                throw error
            } catch {}
        }
        throw CredentialError(.unreadable, "\(label) is not a certificate, private key, CSR or PKCS#12 file in PEM or DER form.")
    }
}

/// Reads the outer DER length so a cut-off download is reported as truncated, not as
/// "unknown format".
package enum DERLength {
    /// A sentence describing the truncation, or nil when the outer length fits the bytes.
    package static func truncation(in bytes: [UInt8]) -> String? {
        guard bytes.count >= 2, bytes[0] == 0x30 else { return nil }
        let first = Int(bytes[1])
        var length: Int
        var header = 2
        if first < 0x80 {
            length = first
        } else {
            let count = first & 0x7F
            guard count >= 1, count <= 4, bytes.count >= 2 + count else { return nil }
            length = 0
            for byte in bytes[2..<(2 + count)] { length = length << 8 | Int(byte) }
            header += count
        }
        let expected = header + length
        guard expected > bytes.count else { return nil }
        return "its DER structure declares \(expected) bytes but the file has \(bytes.count)"
    }
}
