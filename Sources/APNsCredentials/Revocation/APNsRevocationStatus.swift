// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// What a push certificate's issuer says about it: the library's form of `apnskit check
/// --revocation`. A certificate revoked in the developer portal still looks valid on disk; the
/// gateway refuses it in the TLS handshake. Asking the issuer before deploying says so first.
public struct APNsRevocationStatus: Sendable, Equatable, CustomStringConvertible {
    /// The issuer's answer, reduced to the four cases a deployment check acts on: go, stop, ask
    /// again, or decide without an answer.
    public enum State: Sendable, Equatable {
        /// The issuer vouches for the certificate.
        case good
        /// Revoked at `at`, for `reason` (RFC 5280's name, e.g. "keyCompromise") when given.
        case revoked(at: Date, reason: String?)
        /// The issuer's responder does not know the certificate.
        case unknown
        /// No usable answer: the responder was unreachable, its answer stale or not signed by
        /// the issuer, or the certificate names no responder; `description` says which.
        case unavailable
    }

    /// What the issuer said: only `.revoked` means the gateway will refuse the certificate.
    public let state: State
    /// The OCSP responder or CRL asked.
    public let source: String?
    /// When the answer was made, and when it expires.
    public let thisUpdate: Date?
    /// When the issuer's answer expires: ask again after it (nil: the answer gave no date).
    public let nextUpdate: Date?
    /// One sentence, as `apnskit check` prints it.
    public let description: String

    init(_ check: RevocationCheck) {
        switch check.status {
        case .good: state = .good
        case .revoked(let at, let reason): state = .revoked(at: at, reason: reason?.name)
        case .unknown: state = .unknown
        case .unreachable, .invalid, .notChecked: state = .unavailable
        }
        source = check.url
        thisUpdate = check.thisUpdate
        nextUpdate = check.nextUpdate
        description = check.summary
    }
}

extension APNsIdentity {
    /// Asks the certificate's issuer whether it was revoked: OCSP at the responder the
    /// certificate names, else its CRL (docs/apns-protocol.md §2). The issuer is looked up in
    /// the identity's chain and in `issuerCertificatesPEM` (Apple's WWDR intermediate, when the
    /// identity holds only the leaf). Runs on a thread of its own (the HTTP exchange blocks),
    /// bounded by `timeout`; never throws: what cannot be answered is `.unavailable`.
    public func revocationStatus(issuerCertificatesPEM: [UInt8]? = nil, timeout: Duration = .seconds(10)) async -> APNsRevocationStatus {
        let extra = issuerCertificatesPEM.flatMap { try? CredentialFile.load(bytes: $0, label: "issuer certificates", passphrases: .none).certificates } ?? []
        let issuer = RevocationChecker.issuer(of: certificate, among: chain + extra)
        let checker = RevocationChecker(timeout: max(1, Int(timeout.components.seconds)))
        return APNsRevocationStatus(await checker.checkOffThread(certificate, issuer: issuer))
    }
}
