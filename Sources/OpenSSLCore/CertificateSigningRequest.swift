// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL

/// A PKCS#10 certificate signing request: owns one `X509_REQ` and frees it.
/// `@unchecked Sendable`: the request is built and signed in `init` and only read after (this
/// type has no mutating call; callers reach it through `withUnsafePointer`, to read it).
package final class CertificateSigningRequest: OpenSSLObjectOwner, @unchecked Sendable {
    private let pointer: OpaquePointer

    package init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_REQ_free(pointer) }

    /// Lends the `X509_REQ` to `body` (`lendOpenSSLObject`); the pointer must not outlive the call.
    package func withUnsafePointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try lendOpenSSLObject(pointer, of: self, to: body)
    }

    /// Builds and signs (SHA-256) a request for `key` with the subject attributes in order.
    ///
    /// Keychain Access's "Request a Certificate From a CA" produces `emailAddress, CN, C`;
    /// Apple's portal reads only the public key from it, but the subject is kept as Keychain
    /// writes it so the request looks familiar wherever it is inspected.
    package convenience init(key: PrivateKey, subject: [DistinguishedName.Attribute]) throws {
        OpenSSLErrorQueue.clear()
        guard let request = X509_REQ_new() else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not allocate a certificate request.")
        }
        self.init(taking: request)
        guard X509_REQ_set_version(request, 0) == 1 else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not set the request version.")
        }
        guard let name = X509_REQ_get_subject_name(request) else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not read the request subject.")
        }
        for attribute in subject {
            let bytes = Array(attribute.value.utf8)
            let ok = bytes.withUnsafeBufferPointer {
                X509_NAME_add_entry_by_txt(name, attribute.key, MBSTRING_UTF8, $0.baseAddress, Int32($0.count), -1, 0)
            }
            guard ok == 1 else {
                throw CredentialError.openssl(.invalidArgument, "'\(attribute.value)' is not a valid value for the subject field \(attribute.key).")
            }
        }
        guard key.withUnsafePointer({ X509_REQ_set_pubkey(request, $0) }) == 1 else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not put the public key into the request.")
        }
        guard key.withUnsafePointer({ X509_REQ_sign(request, $0, EVP_sha256()) }) > 0 else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not sign the certificate request.")
        }
    }

    /// Decodes a PEM (`CERTIFICATE REQUEST`) or DER request.
    package convenience init(bytes: [UInt8], label: String) throws {
        OpenSSLErrorQueue.clear()
        let bio = try MemoryBIO(bytes)
        let decoded = bio.withUnsafePointer { bio in
            PEMScanner.looksLikePEM(bytes) ? PEM_read_bio_X509_REQ(bio, nil, nil, nil) : d2i_X509_REQ_bio(bio, nil)
        }
        guard let decoded else {
            throw CredentialError.openssl(.unreadable, "\(label) is not a readable certificate signing request (corrupt or truncated).")
        }
        self.init(taking: decoded)
    }

    package func pem() throws -> [UInt8] {
        let bio = try MemoryBIO()
        guard bio.withUnsafePointer({ PEM_write_bio_X509_REQ($0, pointer) }) == 1 else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not encode the request as PEM.")
        }
        return bio.bytes
    }

    package var der: [UInt8] { derEncode { i2d_X509_REQ(pointer, $0) } ?? [] }

    package var subject: DistinguishedName { DistinguishedName(borrowing: X509_REQ_get_subject_name(pointer)) }

    /// The request's public key, as a key object usable for matching and summaries.
    package var publicKeySummary: String {
        guard let key = X509_REQ_get_pubkey(pointer) else { return "unknown" }
        return PrivateKey(taking: key).summary
    }

    /// Whether the request's self-signature verifies (what `openssl req -verify` checks).
    package var signatureIsValid: Bool {
        guard let key = X509_REQ_get0_pubkey(pointer) else { return false }
        let ok = X509_REQ_verify(pointer, key) == 1
        OpenSSLErrorQueue.clear()
        return ok
    }

    /// Whether `key` is the private half of the request's public key.
    package func matches(_ key: PrivateKey) -> Bool {
        guard let publicKey = X509_REQ_get0_pubkey(pointer) else { return false }
        let equal = key.withUnsafePointer { EVP_PKEY_eq(publicKey, $0) } == 1
        OpenSSLErrorQueue.clear()
        return equal
    }
}
