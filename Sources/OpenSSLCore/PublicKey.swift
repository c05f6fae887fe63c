// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL

/// A public key: owns one `EVP_PKEY` holding only public material. The mock gateway keeps one
/// per registered `.p8` key id to check provider-token signatures.
/// `@unchecked Sendable`: the `EVP_PKEY` is never changed after `init` (this type has no
/// mutating call, and callers reach it only through `withUnsafePointer`, for reads: verifying),
/// and OpenSSL allows concurrent reads of one key.
package final class PublicKey: OpenSSLObjectOwner, @unchecked Sendable {
    private let pointer: OpaquePointer

    package init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    /// Lends the `EVP_PKEY` to `body` (`lendOpenSSLObject`); the pointer must not outlive the call.
    package func withUnsafePointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try lendOpenSSLObject(pointer, of: self, to: body)
    }

    /// The public half of `key`.
    package convenience init(of key: PrivateKey) throws {
        let der = try key.publicKeyDER()
        try self.init(der: der, label: "the key")
    }

    /// Decodes SubjectPublicKeyInfo DER.
    package convenience init(der: [UInt8], label: String) throws {
        OpenSSLErrorQueue.clear()
        let decoded: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let decoded else { throw CredentialError.openssl(.unreadable, "\(label) is not a readable public key.") }
        self.init(taking: decoded)
    }

    /// Decodes a `PUBLIC KEY` PEM block.
    package convenience init(pem: [UInt8], label: String) throws {
        OpenSSLErrorQueue.clear()
        let bio = try MemoryBIO(pem)
        guard let decoded = bio.withUnsafePointer({ PEM_read_bio_PUBKEY($0, nil, nil, nil) }) else {
            throw CredentialError.openssl(.unreadable, "\(label) does not hold a readable PEM public key.")
        }
        self.init(taking: decoded)
    }

    package func pem() throws -> [UInt8] {
        let bio = try MemoryBIO()
        guard bio.withUnsafePointer({ PEM_write_bio_PUBKEY($0, pointer) }) == 1 else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not encode the public key.")
        }
        return bio.bytes
    }

    /// Whether this is a P-256 key (the only kind APNs token auth uses).
    package var isP256: Bool {
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_EC else { return false }
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pointer, "group", &buffer, buffer.count, &length) == 1 else { return false }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
    }
}
