// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL
internal import CShims

/// A private key: owns one `EVP_PKEY` and frees it.
///
/// `EVP_PKEY` is reference counted and safe to use from several threads once built, and
/// nothing mutates it after construction: this type has no mutating call, and callers reach
/// it only through `withUnsafePointer`, for signing, encoding and comparing, which read it.
/// Hence `@unchecked Sendable`.
package final class PrivateKey: OpenSSLObjectOwner, @unchecked Sendable {
    private let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    package init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    /// Lends the `EVP_PKEY` to `body` (`lendOpenSSLObject`); the pointer must not outlive the call.
    package func withUnsafePointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try lendOpenSSLObject(pointer, of: self, to: body)
    }

    /// The key types apnskit makes: Apple's portal takes RSA-2048 (Keychain's default) and
    /// accepts RSA-4096 and EC P-256 CSRs; `.p8` token keys are always P-256.
    package enum Kind: String, Sendable, CaseIterable {
        case rsa2048, rsa4096, ec256
    }

    /// Generates a new key.
    package static func generate(_ kind: Kind) throws -> PrivateKey {
        OpenSSLErrorQueue.clear()
        let name = kind == .ec256 ? "EC" : "RSA"
        guard let context = EVP_PKEY_CTX_new_from_name(nil, name, nil) else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL has no \(name) key generator.")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not start \(name) key generation.")
        }
        switch kind {
        case .rsa2048: guard EVP_PKEY_CTX_set_rsa_keygen_bits(context, 2048) == 1 else { throw CredentialError.openssl(.internalFailure, "OpenSSL refused RSA-2048.") }
        case .rsa4096: guard EVP_PKEY_CTX_set_rsa_keygen_bits(context, 4096) == 1 else { throw CredentialError.openssl(.internalFailure, "OpenSSL refused RSA-4096.") }
        case .ec256: guard EVP_PKEY_CTX_set_group_name(context, "P-256") == 1 else { throw CredentialError.openssl(.internalFailure, "OpenSSL refused curve P-256.") }
        }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_generate(context, &key) == 1, let key else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL failed to generate a \(kind.rawValue) key.")
        }
        return PrivateKey(taking: key)
    }

    // MARK: - Facts

    /// `RSA`, `EC`, `ED25519`, ...
    package var algorithm: String {
        switch EVP_PKEY_get_base_id(pointer) {
        case EVP_PKEY_RSA: return "RSA"
        case EVP_PKEY_EC: return "EC"
        case EVP_PKEY_ED25519: return "Ed25519"
        default:
            if let name = EVP_PKEY_get0_type_name(pointer) { return String(cString: name) }
            return "unknown"
        }
    }

    package var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// The curve for EC keys (`P-256`), nil otherwise.
    package var curveName: String? {
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_EC else { return nil }
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pointer, "group", &buffer, buffer.count, &length) == 1 else { return nil }
        let name = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch name {
        case "prime256v1": return "P-256"
        case "secp384r1": return "P-384"
        case "secp521r1": return "P-521"
        default: return name
        }
    }

    /// `RSA-2048`, `EC P-256`: how people name keys.
    package var summary: String {
        if let curve = curveName { return "EC \(curve)" }
        return "\(algorithm)-\(bits)"
    }

    /// Whether this key is the private half of `certificate`'s public key.
    package func matches(_ certificate: Certificate) -> Bool {
        let equal = certificate.withUnsafePointer { x509 -> Int32 in
            guard let publicKey = X509_get0_pubkey(x509) else { return 0 }
            return EVP_PKEY_eq(publicKey, pointer)
        }
        OpenSSLErrorQueue.clear()
        return equal == 1
    }

    /// The SubjectPublicKeyInfo DER of the public half.
    package func publicKeyDER() throws -> [UInt8] {
        guard let der = derEncode({ i2d_PUBKEY(pointer, $0) }) else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not encode the public key.")
        }
        return der
    }

    // MARK: - Encoding

    /// PKCS#8 PEM (`BEGIN PRIVATE KEY`), or encrypted PKCS#8 (`BEGIN ENCRYPTED PRIVATE KEY`,
    /// PBES2 with PBKDF2 and AES-256-CBC) when a passphrase is given.
    package func pkcs8PEM(encryptedWith passphrase: Passphrase? = nil) throws -> [UInt8] {
        let bio = try MemoryBIO()
        OpenSSLErrorQueue.clear()
        let ok: Int32
        if let passphrase {
            guard !passphrase.isEmpty else {
                throw CredentialError(.invalidArgument, "Refusing to encrypt a key with an empty passphrase; give a real one or write the key unencrypted.")
            }
            ok = passphrase.bytes.withUnsafeBufferPointer { buffer in
                let secret = UnsafeMutablePointer(mutating: UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self))
                return bio.withUnsafePointer { PEM_write_bio_PKCS8PrivateKey($0, pointer, EVP_aes_256_cbc(), secret, Int32(buffer.count), nil, nil) }
            }
        } else {
            ok = bio.withUnsafePointer { PEM_write_bio_PKCS8PrivateKey($0, pointer, nil, nil, 0, nil, nil) }
        }
        guard ok == 1 else { throw CredentialError.openssl(.internalFailure, "OpenSSL could not encode the private key as PKCS#8.") }
        return bio.bytes
    }

    /// The "traditional" form older tools expect: PKCS#1 `BEGIN RSA PRIVATE KEY` or SEC1
    /// `BEGIN EC PRIVATE KEY`, unencrypted.
    package func traditionalPEM() throws -> [UInt8] {
        let bio = try MemoryBIO()
        OpenSSLErrorQueue.clear()
        guard bio.withUnsafePointer({ PEM_write_bio_PrivateKey_traditional($0, pointer, nil, nil, 0, nil, nil) }) == 1 else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not encode the private key in its traditional form.")
        }
        return bio.bytes
    }

    /// Unencrypted PKCS#8 DER.
    package func pkcs8DER() throws -> [UInt8] {
        let bio = try MemoryBIO()
        guard bio.withUnsafePointer({ i2d_PKCS8PrivateKey_bio($0, pointer, nil, nil, 0, nil, nil) }) == 1 else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not encode the private key as DER.")
        }
        return bio.bytes
    }
}
