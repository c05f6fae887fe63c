import COpenSSL
import CAPNsShims

extension PrivateKey {
    /// Decodes one private key from a PEM block or DER bytes, in any of the encodings people
    /// meet: PKCS#8 (plain or encrypted), PKCS#1 RSA and SEC1 EC (plain or with the legacy
    /// `Proc-Type: 4,ENCRYPTED` header).
    ///
    /// The passphrase is asked for only if OpenSSL asks for one, so an unencrypted key never
    /// prompts; a passphrase that does not decrypt is reported as such, not as corruption.
    /// An encrypted PKCS#8 key that asks for more work than `KeyDerivationCost` allows is
    /// refused before any passphrase is asked for or tried.
    public static func decode(_ bytes: [UInt8], label: String, passphrases: PassphraseSupplier) throws -> PrivateKey {
        var cost = apns_kdf_cost()
        let encrypted = bytes.withUnsafeBufferPointer {
            apns_kdf_cost_add_pkcs8($0.baseAddress, $0.count, PEMScanner.looksLikePEM(bytes) ? 1 : 0, &cost)
        }
        OpenSSLErrorQueue.clear()
        if encrypted == 1 { try KeyDerivationCost.check(cost, label: label) }
        let first = try attempt(bytes, passphrase: nil)
        if let key = first.key { return key }
        guard first.requested else {
            throw CredentialError(.unreadable, "\(label) does not hold a readable private key (corrupt, truncated or an unsupported encoding).", details: first.errors)
        }
        let passphrase = try passphrases.passphrase(for: label)
        let second = try attempt(bytes, passphrase: passphrase)
        if let key = second.key { return key }
        throw CredentialError(.wrongPassphrase, "The passphrase does not decrypt the private key in \(label); check the value given to --passin.", details: second.errors)
    }

    private static func attempt(_ bytes: [UInt8], passphrase: Passphrase?) throws -> (key: PrivateKey?, requested: Bool, errors: [String]) {
        OpenSSLErrorQueue.clear()
        let pem = PEMScanner.looksLikePEM(bytes)
        let secret: [CChar] = passphrase.map { $0.bytes.map { CChar(bitPattern: $0) } } ?? []
        return try secret.withUnsafeBufferPointer { secretBuffer in
            var context = apns_passphrase(bytes: passphrase == nil ? nil : secretBuffer.baseAddress, length: Int32(secretBuffer.count), requested: 0)
            var key: OpaquePointer? = nil
            if pem {
                let bio = try MemoryBIO(bytes)
                key = PEM_read_bio_PrivateKey(bio.pointer, nil, apns_passphrase_cb, &context)
            } else {
                let bio = try MemoryBIO(bytes)
                key = d2i_PKCS8PrivateKey_bio(bio.pointer, nil, apns_passphrase_cb, &context)
                if key == nil && context.requested == 0 {
                    let plain = try MemoryBIO(bytes)
                    key = d2i_PrivateKey_bio(plain.pointer, nil)
                }
            }
            let errors = OpenSSLErrorQueue.drain()
            return (key.map(PrivateKey.init(taking:)), context.requested != 0, errors)
        }
    }
}
