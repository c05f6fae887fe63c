// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import COpenSSL
import Foundation

/// Owns one `X509_CRL`: a CA's signed list of revoked serial numbers.
///
/// Not `Sendable`: the mock CA fills one in and signs it through `withUnsafePointer`
/// (`MockRevocation.crl`) before encoding it; one decoded from a server's answer is only read.
package final class CertificateRevocationList: OpenSSLObjectOwner {
    private let pointer: OpaquePointer

    package init(der: [UInt8]) throws {
        guard let crl = decodeDER(der, { d2i_X509_CRL(nil, $0, $1) }) else {
            throw APNsCredentialError.openssl(.unreadable, "not a DER certificate revocation list")
        }
        pointer = crl
    }

    package init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { X509_CRL_free(pointer) }

    /// Lends the `X509_CRL` to `body` (`lendOpenSSLObject`); the pointer must not outlive the call.
    package func withUnsafePointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try lendOpenSSLObject(pointer, of: self, to: body)
    }

    package var der: [UInt8] { derEncode { i2d_X509_CRL(pointer, $0) } ?? [] }

    package var lastUpdate: Date? { date(from: X509_CRL_get0_lastUpdate(pointer)) }
    package var nextUpdate: Date? { date(from: X509_CRL_get0_nextUpdate(pointer)) }

    /// Whether `issuer` signed it (its name and its key).
    package func isSigned(by issuer: Certificate) -> Bool {
        defer { OpenSSLErrorQueue.clear() }
        return issuer.withUnsafePointer { issuer in
            guard X509_NAME_cmp(X509_CRL_get_issuer(pointer), X509_get_subject_name(issuer)) == 0,
                  let key = X509_get0_pubkey(issuer) else { return false }
            return X509_CRL_verify(pointer, key) == 1
        }
    }

    /// The revocation of `certificate` in this list, if it is listed.
    package func entry(for certificate: Certificate) -> (date: Date, reason: RevocationReason?)? {
        var revoked: OpaquePointer?
        guard certificate.withUnsafePointer({ X509_CRL_get0_by_cert(pointer, &revoked, $0) }) == 1, let revoked else { return nil }
        let when = date(from: X509_REVOKED_get0_revocationDate(revoked)) ?? .distantPast
        var reason: RevocationReason?
        if let code = X509_REVOKED_get_ext_d2i(revoked, NID_crl_reason, nil, nil) {
            let enumerated = code.assumingMemoryBound(to: ASN1_ENUMERATED.self)
            reason = RevocationReason(rawValue: Int(ASN1_ENUMERATED_get(enumerated)))
            ASN1_ENUMERATED_free(enumerated)
        }
        return (when, reason)
    }
}
