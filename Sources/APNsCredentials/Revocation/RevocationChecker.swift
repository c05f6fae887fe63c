// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import COpenSSL
import Foundation

/// Asks a certificate's issuer whether it was revoked: OCSP at the responder its Authority
/// Information Access names, else the CRL its distribution point names
/// (docs/apns-protocol.md §2, "Revocation"). Blocking (OpenSSL's HTTP client): call it off any
/// event loop; each exchange is bounded by `timeout` and by a response size.
package struct RevocationChecker: Sendable {
    /// Seconds for connecting and for the whole answer.
    package var timeout: Int
    /// Answers larger than this are refused (an OCSP answer for one certificate is about 2 KB).
    package static let maximumOCSPResponse = 100 * 1024
    /// Apple's WWDR CRLs are a few hundred KB; 10 MiB leaves room without letting a hostile
    /// server fill memory.
    package static let maximumCRL = 10 * 1024 * 1024
    /// Clock skew allowed on thisUpdate/nextUpdate, and the age an answer without nextUpdate may
    /// have (OpenSSL's `-validity_period` and `-status_age`).
    package static let skew = 300
    package static let maximumAgeWithoutNextUpdate = 7 * 86_400

    package init(timeout: Int = 10) { self.timeout = timeout }

    /// The issuer of `certificate` among `candidates` (the file's chain, a CA bundle): the one
    /// whose name it names and whose key signed it.
    package static func issuer(of certificate: Certificate, among candidates: [Certificate]) -> Certificate? {
        candidates.first { candidate in
            certificate.isIssued(by: candidate)
                && certificate.withUnsafePointer { subject in candidate.withUnsafePointer { X509_verify(subject, X509_get0_pubkey($0)) } } == 1
        }
    }

    /// `check` on a thread of its own, for async callers (`verify`, the library): OpenSSL's
    /// HTTP client blocks, and must hold neither an event loop nor a cooperative thread.
    package func checkOffThread(_ certificate: Certificate, issuer: Certificate?) async -> RevocationCheck {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: check(certificate, issuer: issuer)) }
        }
    }

    package func check(_ certificate: Certificate, issuer: Certificate?, now: Date = Date()) -> RevocationCheck {
        let ocsp = certificate.ocspURLs.first, crl = certificate.crlURLs.first
        guard ocsp != nil || crl != nil else {
            return RevocationCheck(.notChecked("the certificate names no OCSP responder and no CRL"))
        }
        guard let issuer else {
            return RevocationCheck(.notChecked("its issuer's certificate is not at hand; give it with --ca-file (Apple's WWDR intermediate)"),
                                   url: ocsp ?? crl)
        }
        if let ocsp {
            let answer = askOCSP(ocsp, certificate: certificate, issuer: issuer, now: now)
            // A responder that cannot be reached, or says nothing useful, leaves the CRL to try.
            switch answer.status {
            case .unreachable, .invalid:
                if let crl { return fetchCRL(crl, certificate: certificate, issuer: issuer, now: now, after: answer) }
            case .unknown:
                // A responder that does not know the certificate does not make it good: the
                // CRL may list it, and a revoked answer from either source wins.
                if let crl {
                    let listed = fetchCRL(crl, certificate: certificate, issuer: issuer, now: now, after: nil)
                    if case .revoked = listed.status { return listed }
                }
            default: break
            }
            return answer
        }
        return fetchCRL(crl!, certificate: certificate, issuer: issuer, now: now, after: nil)
    }

    // MARK: - OCSP

    func askOCSP(_ url: String, certificate: Certificate, issuer: Certificate, now: Date) -> RevocationCheck {
        func result(_ status: RevocationCheck.Status, _ this: Date? = nil, _ next: Date? = nil) -> RevocationCheck {
            RevocationCheck(status, method: .ocsp, url: url, thisUpdate: this, nextUpdate: next)
        }
        let id: OCSPCertificateID, request: OCSPRequest
        do {
            id = try OCSPCertificateID(certificate, issuer: issuer)
            request = try OCSPRequest(asking: id)
        } catch {
            return result(.notChecked("OpenSSL could not build an OCSP request"))
        }
        let body: [UInt8]
        do {
            body = try RevocationHTTP.post(url, body: request.der, contentType: "application/ocsp-request", expecting: "application/ocsp-response",
                                           maximumBytes: Self.maximumOCSPResponse, timeout: timeout)
        } catch let failure as RevocationHTTP.Failure {
            return result(.unreachable("the OCSP responder \(failure.sentence)"))
        } catch {
            return result(.unreachable("the OCSP responder \(url) could not be asked"))
        }
        guard let response = try? OCSPResponse(der: body) else { return result(.invalid("\(url) did not answer with an OCSP response")) }
        guard response.status == OCSP_RESPONSE_STATUS_SUCCESSFUL else {
            return result(.invalid("\(url) refused the request (OCSP response status \(response.status))"))
        }
        guard let basic = response.basic() else { return result(.invalid("\(url) answered without a signed status")) }
        // The times `OCSP_resp_find_status` gives below point into `basic`: it lives to the end.
        defer { withExtendedLifetime(basic) {} }
        // The answer must be for this request (a replayed one carries another nonce or none).
        switch request.withUnsafePointer({ request in basic.withUnsafePointer { OCSP_check_nonce(request, $0) } }) {
        case 1, 3: break           // equal; or none in either (a responder may omit it)
        case -1: break             // request had one, the answer none: allowed, freshness decides
        default: return result(.invalid("\(url) answered with another request's nonce (a replayed or misrouted answer)"))
        }
        // Signed by the issuer, or by a responder the issuer delegated (OCSP signing EKU).
        guard verify(basic, issuer: issuer) else {
            return result(.invalid("the answer from \(url) is not signed by the certificate's issuer nor by a responder it delegated"))
        }
        var state: Int32 = -1, reason: Int32 = -1
        var revoked: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?, this: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?, next: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        let found = basic.withUnsafePointer { basic in
            id.withUnsafePointer { OCSP_resp_find_status(basic, $0, &state, &reason, &revoked, &this, &next) }
        }
        guard found == 1 else {
            return result(.invalid("the answer from \(url) does not mention this certificate"))
        }
        let thisDate = date(from: this.map { UnsafePointer(OpaquePointer($0)) }), nextDate = date(from: next.map { UnsafePointer(OpaquePointer($0)) })
        OpenSSLErrorQueue.clear()
        guard OCSP_check_validity(this, next, Self.skew, next == nil ? Self.maximumAgeWithoutNextUpdate : -1) == 1 else {
            OpenSSLErrorQueue.clear()
            let when = nextDate.map { "its next update was due \(RevocationCheck.day($0))" } ?? "it is older than \(Self.maximumAgeWithoutNextUpdate / 86_400) days"
            return result(.invalid("the answer from \(url) is stale: \(when)"), thisDate, nextDate)
        }
        switch state {
        case V_OCSP_CERTSTATUS_GOOD: return result(.good, thisDate, nextDate)
        case V_OCSP_CERTSTATUS_REVOKED:
            let at = date(from: revoked.map { UnsafePointer(OpaquePointer($0)) }) ?? now
            return result(.revoked(at: at, reason: reason >= 0 ? RevocationReason(rawValue: Int(reason)) : nil), thisDate, nextDate)
        default: return result(.unknown, thisDate, nextDate)
        }
    }

    private func verify(_ basic: OCSPBasicResponse, issuer: Certificate) -> Bool {
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        guard let store = try? TrustStore(certificates: [issuer]), let helpers = CertificateStack([issuer]) else { return false }
        return store.withStore { store in
            basic.withUnsafePointer { basic in helpers.withUnsafePointer { OCSP_basic_verify(basic, $0, store, 0) == 1 } }
        }
    }

    // MARK: - CRL

    func fetchCRL(_ url: String, certificate: Certificate, issuer: Certificate, now: Date, after ocsp: RevocationCheck?) -> RevocationCheck {
        func result(_ status: RevocationCheck.Status, _ this: Date? = nil, _ next: Date? = nil) -> RevocationCheck {
            RevocationCheck(status, method: .crl, url: url, thisUpdate: this, nextUpdate: next)
        }
        let prefix = ocsp.map { "\($0.summary.replacingOccurrences(of: "revocation not checked: ", with: "")); then " } ?? ""
        let body: [UInt8]
        do {
            body = try RevocationHTTP.get(url, maximumBytes: Self.maximumCRL, timeout: timeout)
        } catch let failure as RevocationHTTP.Failure {
            return result(.unreachable(prefix + "the CRL at \(failure.sentence)"))
        } catch {
            return result(.unreachable(prefix + "the CRL at \(url) could not be fetched"))
        }
        guard let crl = try? CertificateRevocationList(der: body) else { return result(.invalid(prefix + "\(url) is not a CRL")) }
        guard crl.isSigned(by: issuer) else { return result(.invalid(prefix + "the CRL at \(url) is not signed by the certificate's issuer")) }
        let this = crl.lastUpdate, next = crl.nextUpdate
        // A list dated in the future was not issued by a CA whose clock is right: no answer.
        if let this, this.addingTimeInterval(-TimeInterval(Self.skew)) > now {
            return result(.invalid(prefix + "the CRL at \(url) is dated \(RevocationCheck.day(this)), in the future (its thisUpdate); this machine's clock or the CA's is wrong"), this, next)
        }
        if let next, next.addingTimeInterval(TimeInterval(Self.skew)) < now {
            return result(.invalid(prefix + "the CRL at \(url) is stale: its next update was due \(RevocationCheck.day(next))"), this, next)
        }
        if let entry = crl.entry(for: certificate) {
            return result(.revoked(at: entry.date, reason: entry.reason), this, next)
        }
        return result(.good, this, next)
    }
}
