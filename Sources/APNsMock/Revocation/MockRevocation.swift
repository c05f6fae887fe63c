// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
internal import COpenSSL
import Foundation

/// The mock CA's OCSP responder and CRL: the answers `apnskit mock serve` gives at the URLs
/// its certificates name (`mock ca --revocation-url`), from `index.txt`
/// (`MockRevocationIndex`), signed by the WWDR-like intermediate that issued the certificates,
/// as Apple's WWDR CA answers for push certificates (docs/apns-protocol.md §2, "Revocation").
package struct MockRevocation: Sendable {
    /// Faults for clients' tests: an answer that is out of date, dated a year ahead, or signed
    /// by a key that is not the issuer's; OCSP that knows no certificate (the CRL as usual);
    /// every request answered HTTP 500.
    package enum Fault: String, Sendable, CaseIterable {
        case stale
        case future
        case wrongSigner = "wrong-signer"
        case ocspUnknown = "ocsp-unknown"
        case http500 = "http-500"
    }

    package static func ocspURL(_ base: String) -> String { trimmed(base) + "/ocsp" }
    package static func crlURL(_ base: String) -> String { trimmed(base) + "/wwdr.crl" }
    static func trimmed(_ base: String) -> String { base.hasSuffix("/") ? String(base.dropLast()) : base }

    /// How long an answer is good for (the CRL's and OCSP's nextUpdate).
    package static let validity: TimeInterval = 86_400

    package let issuer: Certificate
    package let issuerKey: PrivateKey
    package let index: MockRevocationIndex
    package var fault: Fault?

    package init(ca: MockCA, folder: String, fault: Fault? = nil) {
        issuer = ca.intermediate
        issuerKey = ca.intermediateKey
        index = MockRevocationIndex(folder: folder)
        self.fault = fault
    }

    /// The signer the answers carry: the issuer, or with `.wrongSigner` a throwaway key with a
    /// self-signed certificate bearing the issuer's name.
    func signer() throws -> (Certificate, PrivateKey) {
        guard fault == .wrongSigner else { return (issuer, issuerKey) }
        let key = try PrivateKey.generate(.ec256)
        let certificate = try CertificateBuilder().build { builder in
            try builder.setSubject(issuer.subject.attributes)
            try builder.setIssuer(nil)
            try builder.setValidity(notBefore: Date().addingTimeInterval(-86_400), notAfter: Date().addingTimeInterval(86_400))
            try builder.setPublicKey(key)
            return try builder.sign(with: key)
        }
        return (certificate, key)
    }

    /// thisUpdate and nextUpdate for an answer made at `now` (in the past with `.stale`, a year
    /// ahead with `.future`).
    func window(_ now: Date) -> (Date, Date) {
        switch fault {
        case .stale: return (now.addingTimeInterval(-3 * Self.validity), now.addingTimeInterval(-2 * Self.validity))
        case .future: return (now.addingTimeInterval(365 * Self.validity), now.addingTimeInterval(366 * Self.validity))
        default: return (now, now.addingTimeInterval(Self.validity))
        }
    }

    /// The DER OCSP response to a DER request: good, revoked or unknown for each certificate
    /// asked about, the request's nonce copied. A request that cannot be read gets
    /// `malformedRequest`, as RFC 6960 says.
    package func respond(to requestDER: [UInt8], now: Date = Date()) throws -> [UInt8] {
        guard let request = try? OCSPRequest(der: requestDER) else {
            return OCSPResponse(taking: try created(OCSP_response_create(OCSP_RESPONSE_STATUS_MALFORMEDREQUEST, nil))).der
        }
        let basic = OCSPBasicResponse(taking: try created(OCSP_BASICRESP_new()))
        let (thisUpdate, nextUpdate) = window(now)
        let this = try ASN1Time(thisUpdate), next = try ASN1Time(nextUpdate)
        let entries = try index.entries()
        let (certificate, key) = try signer()
        // The ids point into the request: it is lent for the whole answer.
        let signed = try request.withUnsafePointer { request in
            try basic.withUnsafePointer { basic in
                for position in 0..<OCSP_request_onereq_count(request) {
                    guard let one = OCSP_request_onereq_get0(request, position), let id = OCSP_onereq_get0_id(one) else { continue }
                    try addStatus(of: id, to: basic, entries: entries, this: this, next: next)
                }
                _ = OCSP_copy_nonce(basic, request)
                return certificate.withUnsafePointer { x509 in key.withUnsafePointer { OCSP_basic_sign(basic, x509, $0, EVP_sha256(), nil, 0) } }
            }
        }
        guard signed == 1 else {
            throw APNsCredentialError(.internalFailure, "OpenSSL could not sign the OCSP answer.")
        }
        return OCSPResponse(taking: try created(basic.withUnsafePointer { OCSP_response_create(OCSP_RESPONSE_STATUS_SUCCESSFUL, $0) })).der
    }

    /// Adds to `basic` the status of the certificate `id` names: good, revoked or unknown.
    private func addStatus(of id: OpaquePointer, to basic: OpaquePointer, entries: [MockRevocationIndex.Entry],
                           this: ASN1Time, next: ASN1Time) throws {
        var status = V_OCSP_CERTSTATUS_UNKNOWN
        var reason: Int32 = -1
        var revokedAt: ASN1Time?
        // The serial is read once per certificate asked about, not once per index entry.
        let serial = try isOurs(id) ? try OCSPCertificateID(copying: id).serialHex : nil
        if fault != .ocspUnknown, let serial, let entry = entries.last(where: { $0.serial == serial }) {
            if let revoked = entry.revoked {
                status = V_OCSP_CERTSTATUS_REVOKED
                reason = revoked.reason.map { Int32($0.rawValue) } ?? -1
                revokedAt = try ASN1Time(revoked.date)
            } else {
                status = V_OCSP_CERTSTATUS_GOOD
            }
        }
        // add1 copies the times.
        let (finalStatus, finalReason) = (status, reason)
        let add = { (revoked: UnsafeMutablePointer<ASN1_TIME>?) in
            this.withUnsafePointer { this in
                next.withUnsafePointer { OCSP_basic_add1_status(basic, id, finalStatus, finalReason, revoked, this, $0) }
            }
        }
        let added = if let revokedAt { revokedAt.withUnsafePointer { add($0) } } else { add(nil) }
        guard added != nil else {
            throw APNsCredentialError(.internalFailure, "OpenSSL could not add a status to the OCSP answer.")
        }
    }

    /// Whether a request's certificate id names our issuer (name and key hashes).
    func isOurs(_ id: OpaquePointer) throws -> Bool {
        var algorithm: OpaquePointer?
        guard OCSP_id_get0_info(nil, &algorithm, nil, nil, id) == 1, let algorithm,
              let digest = EVP_get_digestbyname(OBJ_nid2sn(OBJ_obj2nid(algorithm))),
              let ours = issuer.withUnsafePointer({ OCSP_cert_to_id(digest, nil, $0) }) else { return false }
        defer { OCSP_CERTID_free(ours) }
        return OCSP_id_issuer_cmp(ours, id) == 0
    }

    /// The DER CRL: every revoked entry of the index, signed by the issuer.
    package func crl(now: Date = Date()) throws -> [UInt8] {
        let crl = CertificateRevocationList(taking: try created(X509_CRL_new()))
        let (thisUpdate, nextUpdate) = window(now)
        let (certificate, key) = try signer()
        let this = try ASN1Time(thisUpdate), next = try ASN1Time(nextUpdate)
        let entries = try index.entries()
        // The CRL is this function's own until it is encoded: filled in and signed in place.
        try crl.withUnsafePointer { crl in
            let filled = X509_CRL_set_version(crl, 1) == 1
                && certificate.withUnsafePointer({ X509_CRL_set_issuer_name(crl, X509_get_subject_name($0)) }) == 1
                && this.withUnsafePointer({ X509_CRL_set1_lastUpdate(crl, $0) }) == 1
                && next.withUnsafePointer({ X509_CRL_set1_nextUpdate(crl, $0) }) == 1
            guard filled else { throw APNsCredentialError(.internalFailure, "OpenSSL could not fill in the CRL.") }
            for entry in entries {
                guard let revoked = entry.revoked else { continue }
                try RevokedEntry(serialHex: entry.serial, date: revoked.date, reason: revoked.reason).add(to: crl)
            }
            _ = X509_CRL_sort(crl)
            guard key.withUnsafePointer({ X509_CRL_sign(crl, $0, EVP_sha256()) }) > 0 else {
                throw APNsCredentialError(.internalFailure, "OpenSSL could not sign the CRL.")
            }
        }
        return crl.der
    }
}

/// A pointer OpenSSL allocated, or the error that it could not.
func created(_ pointer: OpaquePointer?) throws -> OpaquePointer {
    guard let pointer else { throw APNsCredentialError(.internalFailure, "OpenSSL could not allocate an object for the revocation answer.") }
    return pointer
}

/// Owns one `ASN1_TIME`; OpenSSL's `set1`/`add1` calls it is lent to copy it.
final class ASN1Time {
    private let pointer: UnsafeMutablePointer<ASN1_TIME>
    init(_ date: Date) throws {
        guard let time = ASN1_TIME_set(nil, time_t(date.timeIntervalSince1970)) else {
            throw APNsCredentialError(.internalFailure, "OpenSSL could not encode a time.")
        }
        pointer = time
    }
    deinit { ASN1_TIME_free(pointer) }

    /// Lends the `ASN1_TIME` to `body` (`lendOpenSSLObject`); the pointer must not outlive the call.
    func withUnsafePointer<Result, Failure: Error>(_ body: (UnsafeMutablePointer<ASN1_TIME>) throws(Failure) -> Result) throws(Failure) -> Result {
        try lendOpenSSLObject(pointer, of: self, to: body)
    }
}

/// Owns one `X509_REVOKED` until a CRL takes it.
final class RevokedEntry {
    private var pointer: OpaquePointer?

    init(serialHex: String, date: Date, reason: RevocationReason?) throws {
        let entry = try created(X509_REVOKED_new())
        pointer = entry
        var number: OpaquePointer?
        guard BN_hex2bn(&number, serialHex) > 0, let number else { throw APNsCredentialError(.internalFailure, "index.txt holds a serial that is not hex: \(serialHex).") }
        defer { BN_free(number) }
        guard let serial = BN_to_ASN1_INTEGER(number, nil) else { throw APNsCredentialError(.internalFailure, "OpenSSL could not encode a serial.") }
        defer { ASN1_INTEGER_free(serial) }
        let when = try ASN1Time(date)
        guard X509_REVOKED_set_serialNumber(entry, serial) == 1,
              when.withUnsafePointer({ X509_REVOKED_set_revocationDate(entry, $0) }) == 1 else {
            throw APNsCredentialError(.internalFailure, "OpenSSL could not fill in a CRL entry.")
        }
        if let reason {
            guard let code = ASN1_ENUMERATED_new() else { throw APNsCredentialError(.internalFailure, "OpenSSL could not encode a reason.") }
            defer { ASN1_ENUMERATED_free(code) }
            guard ASN1_ENUMERATED_set(code, reason.rawValue) == 1, X509_REVOKED_add1_ext_i2d(entry, NID_crl_reason, code, 0, 0) == 1 else {
                throw APNsCredentialError(.internalFailure, "OpenSSL could not add a CRL reason.")
            }
        }
    }

    /// Hands the entry to `crl`, a CRL being built (which frees it from then on).
    func add(to crl: OpaquePointer) throws {
        guard let entry = pointer, X509_CRL_add0_revoked(crl, entry) == 1 else {
            throw APNsCredentialError(.internalFailure, "OpenSSL could not add a CRL entry.")
        }
        pointer = nil
    }

    deinit { if let pointer { X509_REVOKED_free(pointer) } }
}
