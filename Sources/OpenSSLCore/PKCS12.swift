// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL
internal import CShims

/// Owns one `PKCS12` structure and frees it. Not `Sendable`: `PKCS12_set_mac` changes it
/// while `create` builds one; a parsed one is only read.
final class PKCS12Object: OpenSSLObjectOwner {
    private let pointer: OpaquePointer
    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { PKCS12_free(pointer) }

    /// Lends the `PKCS12` to `body` (`lendOpenSSLObject`); the pointer must not outlive the call.
    func withUnsafePointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try lendOpenSSLObject(pointer, of: self, to: body)
    }
}

/// Reads and writes PKCS#12 (.p12/.pfx) files.
package enum PKCS12 {
    /// The encryption a new file uses.
    package enum Format: String, Sendable {
        /// AES-256-CBC with PBKDF2 and a SHA-256 MAC: OpenSSL 3's default, the right choice
        /// for anything that is not macOS.
        case modern
        /// pbeWithSHA1And40BitRC2-CBC (certificate), pbeWithSHA1And3-KeyTripleDES-CBC (key),
        /// SHA-1 MAC: what Keychain writes, and what macOS `SecPKCS12Import` can read.
        case legacy
    }

    /// More certificates than this in one file are refused. Keychain exports hold one to three;
    /// a 16 MiB file can hold about 10,000, which took seconds and over 100 MB to turn into
    /// objects and printed a 10,000-line chain, to no use.
    package static let maximumCertificates = 100

    /// More private keys than this in one file are refused: each is a key derivation and a
    /// decryption, and the multi-identity files real projects ship hold two to four.
    package static let maximumKeys = 16

    /// Parses a DER PKCS#12 file, asking `passphrases` only when the empty password (in
    /// either of its two encodings) does not open it. A file that asks for more key-derivation
    /// work than `KeyDerivationCost` allows is refused before any passphrase is tried.
    package static func parse(_ bytes: [UInt8], label: String, passphrases: PassphraseSupplier) throws -> CredentialContents {
        OpenSSLProviders.ensureLoaded()
        let archive = try decode(bytes, label: label)
        try checkCost(archive, password: nil, label: label)
        var password: [CChar]
        if archive.withUnsafePointer({ PKCS12_mac_present($0) }) == 1 {
            if archive.withUnsafePointer({ PKCS12_verify_mac($0, nil, 0) == 1 || PKCS12_verify_mac($0, "", 0) == 1 }) {
                password = [0]
            } else {
                OpenSSLErrorQueue.clear()
                let given = try passphrases.passphrase(for: label)
                password = given.bytes.map { CChar(bitPattern: $0) } + [0]
                let verified = password.withUnsafeBufferPointer { pass in
                    archive.withUnsafePointer { PKCS12_verify_mac($0, pass.baseAddress, Int32(given.bytes.count)) }
                }
                guard verified == 1 else {
                    var error = CredentialError(.wrongPassphrase, "The passphrase does not open \(label) (its integrity check failed).",
                                                details: OpenSSLErrorQueue.drain(), file: label)
                    error.option = passphrases.optionName
                    error.remedy = .passphrase
                    throw error
                }
            }
            try checkCost(archive, password: password, label: label)
            return try extract(archive, password: password, label: label)
        }
        // No MAC: the only test of a password is whether the bags decrypt.
        try checkCost(archive, password: [0], label: label)
        if let contents = try? extract(archive, password: [0], label: label) { return contents }
        let given = try passphrases.passphrase(for: label)
        password = given.bytes.map { CChar(bitPattern: $0) } + [0]
        try checkCost(archive, password: password, label: label)
        do {
            return try extract(archive, password: password, label: label)
        } catch var error as CredentialError where error.kind == .wrongPassphrase {
            error.option = passphrases.optionName
            throw error
        }
    }

    /// True when the bytes decode as a PKCS#12 structure (used to sniff DER files).
    package static func isPKCS12(_ bytes: [UInt8]) -> Bool {
        let result = (try? decode(bytes, label: "")) != nil
        OpenSSLErrorQueue.clear()
        return result
    }

    /// Refuses `archive` if it asks for more than `KeyDerivationCost` allows. Without a
    /// password it reads what is in the clear: the MAC, the encrypted contents' algorithms,
    /// the key bags of the plain contents. With the (NUL-terminated) password, which only
    /// follows a check without one, it also decrypts the encrypted contents to reach key bags
    /// hidden inside them, which `PKCS12_parse` would otherwise derive keys for unchecked.
    private static func checkCost(_ archive: PKCS12Object, password: [CChar]?, label: String) throws {
        var cost = shim_kdf_cost()
        if let password {
            _ = password.withUnsafeBufferPointer { pass in
                archive.withUnsafePointer { shim_kdf_cost_add_pkcs12($0, 1, pass.baseAddress, Int32(pass.count - 1), &cost) }
            }
        } else {
            _ = archive.withUnsafePointer { shim_kdf_cost_add_pkcs12($0, 0, nil, 0, &cost) }
        }
        OpenSSLErrorQueue.clear()
        try KeyDerivationCost.check(cost, label: label)
    }

    static func decode(_ bytes: [UInt8], label: String) throws -> PKCS12Object {
        OpenSSLErrorQueue.clear()
        let decoded: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PKCS12(nil, &cursor, buffer.count)
        }
        guard let decoded else {
            throw CredentialError.openssl(.unreadable, "\(label) is not a readable PKCS#12 file (corrupt or truncated); export it again.")
        }
        return PKCS12Object(taking: decoded)
    }

    /// Every certificate and key in the file with its bag attributes (`shim_p12_items`), not
    /// `PKCS12_parse`'s one key + one certificate + "ca" reading, so that a file with several
    /// identities keeps them all and no leaf with its own key is mistaken for chain.
    private static func extract(_ archive: PKCS12Object, password: [CChar], label: String) throws -> CredentialContents {
        OpenSSLErrorQueue.clear()
        var items = [shim_p12_item](repeating: shim_p12_item(), count: maximumCertificates + maximumKeys + 1)
        var count: Int32 = 0
        var certificateCount: Int32 = 0
        var keyCount: Int32 = 0
        let result = password.withUnsafeBufferPointer { pass in
            items.withUnsafeMutableBufferPointer { buffer in
                archive.withUnsafePointer {
                    shim_p12_items($0, pass.baseAddress, Int32(pass.count - 1), buffer.baseAddress, Int32(buffer.count), &count,
                                   &certificateCount, &keyCount)
                }
            }
        }
        if result == -1 || certificateCount > maximumCertificates || keyCount > maximumKeys {
            if result == 1 { for index in 0..<Int(count) { shim_p12_item_free(&items[index]) } }
            throw CredentialError(.unreadable, "\(label) holds \(certificateCount) certificates and \(keyCount) private keys; a push certificate export holds a few (at most \(maximumCertificates) certificates and \(maximumKeys) keys are accepted), so this is not one.", file: label)
        }
        guard result == 1 else {
            let entries = OpenSSLErrorQueue.drainEntries()
            switch DecryptionFailure.classify(entries) {
            case .unsupported(let algorithm):
                var error: CredentialError
                if !OpenSSLProviders.legacyAvailable {
                    error = CredentialError(.unsupportedAlgorithm, "\(label) uses legacy encryption (RC2/3DES) and OpenSSL's legacy provider is not installed; install it (Debian: libssl3) and try again.",
                                            details: entries.map(\.text), file: label)
                } else {
                    error = CredentialError(.unsupportedAlgorithm, "\(label) is encrypted with \(algorithm ?? "an algorithm") this OpenSSL cannot decrypt (not even with its legacy provider); export it again with AES-256 or 3DES.",
                                            details: entries.map(\.text), file: label)
                }
                error.algorithm = algorithm
                throw error
            case .wrongPassphrase:
                throw CredentialError(.wrongPassphrase, "The passphrase does not decrypt \(label).", details: entries.map(\.text), file: label, remedy: .passphrase)
            }
        }
        var contents = CredentialContents(encoding: .pkcs12)
        for index in 0..<Int(count) {
            var item = items[index]
            let attributes = BagAttributes(friendlyName: item.friendly_name.map { String(cString: $0) },
                                           localKeyID: withUnsafeBytes(of: &item.local_key_id) { Array($0.prefix(Int(item.local_key_id_length))) })
            if let certificate = item.certificate {
                item.certificate = nil
                contents.certificates.append(Certificate(taking: certificate))
                contents.certificateAttributes.append(attributes)
            } else if let key = item.key {
                item.key = nil
                contents.privateKeys.append(PrivateKey(taking: key))
                contents.keyAttributes.append(attributes)
            }
            shim_p12_item_free(&item)
        }
        return contents
    }

    /// Writes a PKCS#12 file with whatever of certificate, key and chain is given.
    package static func create(certificate: Certificate?, privateKey: PrivateKey?, chain: [Certificate] = [],
                              passphrase: Passphrase, format: Format, friendlyName: String? = nil) throws -> [UInt8] {
        OpenSSLProviders.ensureLoaded()
        if format == .legacy && !OpenSSLProviders.legacyAvailable {
            throw CredentialError(.internalFailure, "OpenSSL's legacy provider is not installed, so RC2/3DES PKCS#12 files cannot be written; install it or use the modern format.")
        }
        guard certificate != nil || privateKey != nil || !chain.isEmpty else {
            throw CredentialError(.invalidArgument, "A PKCS#12 file needs a certificate, a key or both.")
        }
        OpenSSLErrorQueue.clear()
        guard let stack = shim_sk_X509_new_null() else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not allocate a certificate list.")
        }
        defer { shim_sk_X509_pop_free(stack) }
        for cert in chain where cert.withUnsafePointer({ shim_sk_X509_push_up_ref(stack, $0) }) != 1 {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not add a chain certificate.")
        }
        let (keyNID, certNID, macDigest) = format == .legacy
            ? (NID_pbe_WithSHA1And3_Key_TripleDES_CBC, NID_pbe_WithSHA1And40BitRC2_CBC, EVP_sha1())
            : (NID_aes_256_cbc, NID_aes_256_cbc, EVP_sha256())
        let password = passphrase.bytes.map { CChar(bitPattern: $0) } + [0]
        let name = friendlyName ?? certificate?.subject.commonName
        let created: OpaquePointer? = password.withUnsafeBufferPointer { pass in
            withOptionalPointer(privateKey) { key in
                withOptionalPointer(certificate) { x509 in
                    PKCS12_create(pass.baseAddress, name, key, x509, stack, keyNID, certNID, PKCS12_DEFAULT_ITER, -1, 0)
                }
            }
        }
        guard let created else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not build the PKCS#12 structure.")
        }
        let archive = PKCS12Object(taking: created)
        let macOK = password.withUnsafeBufferPointer { pass in
            archive.withUnsafePointer { PKCS12_set_mac($0, pass.baseAddress, Int32(passphrase.bytes.count), nil, 0, PKCS12_DEFAULT_ITER, macDigest) }
        }
        guard macOK == 1 else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not add the PKCS#12 integrity MAC.")
        }
        guard let der = archive.withUnsafePointer({ archive in derEncode { i2d_PKCS12(archive, $0) } }) else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not encode the PKCS#12 file.")
        }
        return der
    }
}
