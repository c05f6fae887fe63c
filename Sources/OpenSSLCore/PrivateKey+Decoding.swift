// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL
internal import CShims

extension PrivateKey {
    /// Decodes one private key from a PEM block or DER bytes, in any of the encodings people
    /// meet: PKCS#8 (plain or encrypted), PKCS#1 RSA and SEC1 EC (plain or with the legacy
    /// `Proc-Type: 4,ENCRYPTED` header).
    ///
    /// The passphrase is asked for only if OpenSSL asks for one, so an unencrypted key never
    /// prompts; a passphrase that does not decrypt is reported as such, not as corruption.
    /// An encrypted PKCS#8 key that asks for more work than `KeyDerivationCost` allows is
    /// refused before any passphrase is asked for or tried.
    package static func decode(_ bytes: [UInt8], label: String, passphrases: PassphraseSupplier) throws -> PrivateKey {
        // DES, RC2 and MD5-based PBE live in the legacy provider: loaded before any decryption,
        // not only on the PKCS#12 path, or a DES-CBC key reads only after a .p12 was read.
        OpenSSLProviders.ensureLoaded()
        var cost = shim_kdf_cost()
        let encrypted = bytes.withUnsafeBufferPointer {
            shim_kdf_cost_add_pkcs8($0.baseAddress, $0.count, PEMScanner.looksLikePEM(bytes) ? 1 : 0, &cost)
        }
        OpenSSLErrorQueue.clear()
        if encrypted == 1 { try KeyDerivationCost.check(cost, label: label) }
        let first = try attempt(bytes, passphrase: nil)
        if let key = first.key { return key }
        guard first.requested else {
            throw CredentialError(.unreadable, "\(label) does not hold a readable private key (corrupt, truncated or an unsupported encoding).",
                                  details: first.errors.map(\.text), file: label)
        }
        let passphrase = try passphrases.passphrase(for: label)
        let second = try attempt(bytes, passphrase: passphrase)
        if let key = second.key { return key }
        throw decryptionError(second.errors, bytes: bytes, label: label, option: passphrases.optionName)
    }

    /// `unsupportedAlgorithm` naming the cipher when OpenSSL's queue says it could not run it,
    /// else `wrongPassphrase`: two different sentences for two different remedies.
    static func decryptionError(_ entries: [OpenSSLErrorQueue.Entry], bytes: [UInt8], label: String, option: String?) -> CredentialError {
        switch DecryptionFailure.classify(entries) {
        case .unsupported(let reported):
            let name = encryptionName(bytes) ?? reported ?? "its encryption algorithm"
            var error = CredentialError(.unsupportedAlgorithm,
                                        "The private key in \(label) is encrypted with \(name), which this OpenSSL cannot decrypt (not even with its legacy provider); decrypt it where it was made, or export it again with AES-256.",
                                        details: entries.map(\.text), file: label)
            error.algorithm = name
            return error
        case .wrongPassphrase:
            var error = CredentialError(.wrongPassphrase, "The passphrase does not decrypt the private key in \(label).",
                                        details: entries.map(\.text), file: label)
            error.option = option
            error.remedy = .passphrase
            return error
        }
    }

    /// The encryption a key names: `DES-CBC` from a PEM `DEK-Info` header, the PBE scheme or
    /// PBES2 cipher of an encrypted PKCS#8 key.
    static func encryptionName(_ bytes: [UInt8]) -> String? {
        let pem = PEMScanner.looksLikePEM(bytes)
        if pem, let header = PEMScanner.header("DEK-Info", in: bytes) {
            return String(header.prefix { $0 != "," })
        }
        var name = [CChar](repeating: 0, count: 128)
        let found = bytes.withUnsafeBufferPointer { shim_pkcs8_encryption_name($0.baseAddress, $0.count, pem ? 1 : 0, &name, Int32(name.count)) }
        OpenSSLErrorQueue.clear()
        guard found == 1 else { return nil }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func attempt(_ bytes: [UInt8], passphrase: Passphrase?) throws -> (key: PrivateKey?, requested: Bool, errors: [OpenSSLErrorQueue.Entry]) {
        OpenSSLErrorQueue.clear()
        let pem = PEMScanner.looksLikePEM(bytes)
        let secret: [CChar] = passphrase.map { $0.bytes.map { CChar(bitPattern: $0) } } ?? []
        return try secret.withUnsafeBufferPointer { secretBuffer in
            var context = shim_passphrase(bytes: passphrase == nil ? nil : secretBuffer.baseAddress, length: Int32(secretBuffer.count), requested: 0)
            var key: OpaquePointer? = nil
            if pem {
                let bio = try MemoryBIO(bytes)
                key = bio.withUnsafePointer { PEM_read_bio_PrivateKey($0, nil, shim_passphrase_cb, &context) }
            } else {
                let bio = try MemoryBIO(bytes)
                key = bio.withUnsafePointer { d2i_PKCS8PrivateKey_bio($0, nil, shim_passphrase_cb, &context) }
                if key == nil && context.requested == 0 {
                    let plain = try MemoryBIO(bytes)
                    key = plain.withUnsafePointer { d2i_PrivateKey_bio($0, nil) }
                }
            }
            let errors = OpenSSLErrorQueue.drainEntries()
            return (key.map(PrivateKey.init(taking:)), context.requested != 0, errors)
        }
    }
}
