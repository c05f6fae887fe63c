// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL
internal import CShims
import Foundation

/// An X.509 certificate: owns one `X509` and frees it (a reference of its own when it was
/// taken from an SSL object or a stack).
///
/// `@unchecked Sendable`, because nothing changes the `X509` once a `Certificate` holds it:
/// this type has no mutating call, the owners it may share the object with (an `SSL*` after
/// its handshake, a `STACK_OF(X509)`) only read it, and a builder hands out a copy, never the
/// object it still fills in (`CertificateBuilder.sign`). OpenSSL 3 allows concurrent reads of
/// one `X509`; the lazily computed extension flags are filled in under its own lock. Callers
/// reach the `X509` only through `withUnsafePointer`, for the length of one closure.
package final class Certificate: OpenSSLObjectOwner, @unchecked Sendable {
    private let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    package init(taking pointer: OpaquePointer) { self.pointer = pointer }

    /// Takes a new reference to a certificate owned elsewhere (a stack, an SSL object).
    package init(retaining pointer: OpaquePointer) {
        X509_up_ref(pointer)
        self.pointer = pointer
    }

    deinit { X509_free(pointer) }

    /// Lends the `X509` to `body` (`lendOpenSSLObject`); the pointer must not outlive the call.
    package func withUnsafePointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try lendOpenSSLObject(pointer, of: self, to: body)
    }

    /// Decodes exactly one DER certificate; trailing bytes are an error (a concatenation of
    /// DER objects is not a certificate file).
    package convenience init(der: [UInt8], label: String = "input") throws {
        OpenSSLErrorQueue.clear()
        let decoded: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let result = d2i_X509(nil, &cursor, buffer.count)
            if let result, let cursor, cursor != buffer.baseAddress! + buffer.count {
                X509_free(result)
                return nil
            }
            return result
        }
        guard let decoded else {
            throw CredentialError.openssl(.unreadable, "\(label) is not a readable DER certificate (corrupt or truncated).")
        }
        self.init(taking: decoded)
    }

    /// Decodes the first `CERTIFICATE` block of PEM text.
    package convenience init(pem: [UInt8], label: String = "input") throws {
        OpenSSLErrorQueue.clear()
        let bio = try MemoryBIO(pem)
        guard let decoded = bio.withUnsafePointer({ PEM_read_bio_X509($0, nil, nil, nil) }) else {
            throw CredentialError.openssl(.unreadable, "\(label) does not hold a readable PEM certificate (corrupt or truncated).")
        }
        self.init(taking: decoded)
    }

    // MARK: - Encodings

    package var der: [UInt8] { derEncode { i2d_X509(pointer, $0) } ?? [] }

    package func pem() throws -> [UInt8] {
        let bio = try MemoryBIO()
        guard bio.withUnsafePointer({ PEM_write_bio_X509($0, pointer) }) == 1 else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not encode the certificate as PEM.")
        }
        return bio.bytes
    }

    // MARK: - Facts

    package var subject: DistinguishedName { DistinguishedName(borrowing: X509_get_subject_name(pointer)) }
    package var issuer: DistinguishedName { DistinguishedName(borrowing: X509_get_issuer_name(pointer)) }

    package var notBefore: Date { date(from: X509_get0_notBefore(pointer)) ?? .distantPast }
    package var notAfter: Date { date(from: X509_get0_notAfter(pointer)) ?? .distantPast }

    /// Serial number as upper-case hex, as `openssl x509 -serial` prints it.
    package var serialNumberHex: String {
        guard let serial = X509_get0_serialNumber(pointer), let bn = ASN1_INTEGER_to_BN(serial, nil) else { return "" }
        defer { BN_free(bn) }
        guard let text = BN_bn2hex(bn) else { return "" }
        defer { opensslFree(text) }
        return String(cString: text)
    }

    package enum Digest: Sendable { case sha1, sha256 }

    /// `AB:CD:...` over the DER encoding, as `openssl x509 -fingerprint` prints it.
    package func fingerprint(_ digest: Digest) -> String {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let md = digest == .sha1 ? EVP_sha1() : EVP_sha256()
        guard X509_digest(pointer, md, &output, &length) == 1 else { return "" }
        return hex(output.prefix(Int(length)), separator: ":", uppercase: true)
    }

    /// `RSA-2048`, `EC P-256` for the certificate's public key.
    package var publicKeySummary: String {
        guard let key = X509_get0_pubkey(pointer) else { return "unknown" }
        EVP_PKEY_up_ref(key)
        return PrivateKey(taking: key).summary
    }

    /// Whether this is a CA certificate (BasicConstraints CA:TRUE).
    package var isCA: Bool { X509_check_ca(pointer) > 0 }

    /// Whether issuer and subject are the same name (a root or a self-signed leaf).
    package var isSelfIssued: Bool { X509_NAME_cmp(X509_get_subject_name(pointer), X509_get_issuer_name(pointer)) == 0 }

    /// Whether `other` issued this certificate (names match and its key verifies our signature).
    package func isIssued(by other: Certificate) -> Bool {
        let result = other.withUnsafePointer { X509_check_issued($0, pointer) } == X509_V_OK
        OpenSSLErrorQueue.clear()
        return result
    }

    /// The raw value (the OCTET STRING's contents) of the extension with this dotted OID.
    package func extensionValue(oid: String) -> [UInt8]? {
        guard let object = OBJ_txt2obj(oid, 1) else { OpenSSLErrorQueue.clear(); return nil }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(pointer, object, -1)
        guard index >= 0, let ext = X509_get_ext(pointer, index), let data = X509_EXTENSION_get_data(ext) else { return nil }
        let length = Int(ASN1_STRING_length(data))
        guard length > 0, let bytes = ASN1_STRING_get0_data(data) else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    /// Days from `now` until expiry, rounded down; negative once expired.
    package func daysLeft(at now: Date = Date()) -> Int {
        Int((notAfter.timeIntervalSince(now) / 86_400).rounded(.down))
    }
}
