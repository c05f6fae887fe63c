// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
/// Assembles an `APNsIdentity` from the files users actually have: one combined PEM, one .p12,
/// or a certificate file (PEM or DER) plus a key file, with optional chain files.
package enum IdentityLoader {
    /// - Parameter selector: which identity, when the files hold several key + certificate
    ///   pairs; without it such files are refused (`ambiguousIdentity`), never reduced to the first.
    package static func load(_ paths: [String], passphrases: PassphraseSupplier, identity selector: IdentitySelector? = nil) throws -> APNsIdentity {
        var merged = CredentialContents(encoding: .pem)
        var certificateFiles: [String] = []
        var keyFiles: [String] = []
        var requestOnly: [String] = []
        for path in paths {
            let contents = try CredentialFile.load(path, passphrases: passphrases)
            merged.certificates += contents.certificates
            merged.certificateAttributes += contents.certificates.indices.map { contents.attributes(certificate: $0) }
            merged.privateKeys += contents.privateKeys
            merged.keyAttributes += contents.privateKeys.indices.map { contents.attributes(key: $0) }
            certificateFiles += contents.certificates.map { _ in displayName(path) }
            keyFiles += contents.privateKeys.map { _ in displayName(path) }
            if contents.certificates.isEmpty && contents.privateKeys.isEmpty && !contents.requests.isEmpty {
                requestOnly.append(displayName(path))
            }
        }
        let names = paths.map(displayName).joined(separator: " and ")
        if let csr = requestOnly.first {
            throw APNsCredentialError(.wrongKind, "\(csr) holds a certificate signing request, not a certificate or key; upload it to Apple's portal and use the .cer you get back.", file: csr)
        }
        guard !merged.certificates.isEmpty else {
            throw APNsCredentialError(.wrongKind, "No certificate found in \(names); give the .cer/.pem certificate or a .p12 that holds it.")
        }
        guard !merged.privateKeys.isEmpty else {
            throw APNsCredentialError(.wrongKind, "No private key found in \(names); give the key file too, or a .p12 exported with its private key.")
        }
        let selection = try merged.select(selector, label: names)
        guard let certificate = selection.certificate, let key = selection.privateKey else {
            throw APNsCredentialError(.wrongKind, "No certificate and key pair found in \(names).")
        }
        let certificateLabel = merged.certificates.firstIndex { $0 === certificate }.map { certificateFiles[$0] } ?? names
        let keyLabel = merged.privateKeys.firstIndex { $0 === key }.map { keyFiles[$0] } ?? names
        return try APNsIdentity(certificate: certificate, privateKey: key, chain: selection.chain,
                            certificateLabel: certificateLabel, keyLabel: keyLabel)
    }

    /// The first certificate in `path`, with a clear error when the file holds something else.
    package static func certificate(_ path: String, passphrases: PassphraseSupplier = .none) throws -> (Certificate, chain: [Certificate]) {
        let contents = try CredentialFile.load(path, passphrases: passphrases)
        guard let first = contents.certificates.first else {
            throw wrongKind(path, contents, wanted: "a certificate")
        }
        return (first, Array(contents.certificates.dropFirst()))
    }

    /// The single private key in `path`.
    package static func privateKey(_ path: String, passphrases: PassphraseSupplier) throws -> PrivateKey {
        try privateKeyFile(path, passphrases: passphrases).key
    }

    /// The single private key in `path`, and whether the file stored it encrypted.
    package static func privateKeyFile(_ path: String, passphrases: PassphraseSupplier) throws -> (key: PrivateKey, wasEncrypted: Bool) {
        let contents = try CredentialFile.load(path, passphrases: passphrases)
        guard let key = contents.privateKeys.first else { throw wrongKind(path, contents, wanted: "a private key") }
        guard contents.privateKeys.count == 1 else {
            throw APNsCredentialError(.wrongKind, "\(displayName(path)) holds \(contents.privateKeys.count) private keys; give a file with exactly one.", file: displayName(path))
        }
        return (key, contents.hadEncryptedKey)
    }

    /// All certificates in the given chain files, in order.
    package static func chain(_ paths: [String]) throws -> [Certificate] {
        var result: [Certificate] = []
        for path in paths {
            let contents = try CredentialFile.load(path, passphrases: .none)
            guard !contents.certificates.isEmpty else { throw wrongKind(path, contents, wanted: "chain certificates") }
            result += contents.certificates
        }
        return result
    }

    static func wrongKind(_ path: String, _ contents: CredentialContents, wanted: String) -> APNsCredentialError {
        var hint = ""
        if !contents.requests.isEmpty && contents.certificates.isEmpty {
            hint = "; a CSR is what you upload to Apple's portal, the certificate is the .cer it gives back"
        }
        return APNsCredentialError(.wrongKind, "\(displayName(path)) holds \(contents.summary), not \(wanted)\(hint).")
    }
}
