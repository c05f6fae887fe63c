// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport

/// The one classification of a connection to the gateway that failed before any answer:
/// `verify` (GatewayCheck) and the sender (`push`) both use it, so the same failure gets the
/// same sentence and the same verdict (the CLI's exit code) from each.
///
/// A TLS alert about our certificate (`unknown_ca`, `certificate_expired`,
/// `certificate_required`, ...) means the gateway answered and refused the credentials:
/// `credentialsRejected` (exit 1), and retrying cannot help. Everything else (refused, DNS,
/// timeout, a server we cannot trust, a server that does not speak TLS or HTTP/2) means no
/// verdict: `unreachable` (exit 4).
package struct ConnectionFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Verdict: Sendable, Equatable {
        /// The gateway refused the client certificate (or wanted one): fix the credentials.
        case credentialsRejected
        /// No connection, or no verdict on the credentials.
        case unreachable
    }

    package let verdict: Verdict
    /// One sentence: what happened and, for a refusal, what to fix.
    package let sentence: String
    /// The TLS alert that ended the connection, by name.
    package let alert: String?

    package var description: String { sentence }

    /// Classifies `error` from connecting to `endpoint`; `presentedCertificate` says whether
    /// we offered a client certificate (token auth does not).
    package init(_ error: Error, endpoint: String, presentedCertificate: Bool) {
        guard let error = error as? TransportError else {
            self.init(.unreachable, "Could not connect to \(endpoint): \(error).", alert: nil)
            return
        }
        if case .untrustedServer(let trust) = error.kind {
            self.init(untrusted: trust)
            return
        }
        if case .tlsAlert(let tlsAlert) = error.kind {
            if tlsAlert.isAboutClientCertificate {
                let what = presentedCertificate ? "the client certificate" : "the connection: it requires a client certificate and none was given"
                let fix: String
                switch tlsAlert {
                case .certificateExpired: fix = "the certificate has expired; renew it in Apple's developer portal"
                case .unknownCA: fix = "the certificate was not issued by a CA the gateway trusts; use the certificate Apple issued for your app"
                case .certificateRequired: fix = "give the push certificate (and its key)"
                default: fix = "use a valid push certificate issued by Apple, with its matching key"
                }
                self.init(.credentialsRejected, "The server rejected \(what) with TLS alert \(tlsAlert.name): \(fix).", alert: tlsAlert.name)
                return
            }
            if tlsAlert.code == 70 {
                self.init(.unreachable, "The TLS handshake with \(endpoint) failed with alert protocol_version: the server offers no TLS version we accept (TLS 1.2 or newer).",
                          alert: tlsAlert.name)
                return
            }
            self.init(.unreachable, error.message, alert: tlsAlert.name)
            return
        }
        // OpenSSL says "wrong version number" for a first record that is no TLS record at all:
        // bytes of another protocol, or a proxy's own after its 200 to CONNECT (issue 31).
        if error.kind == .tls, error.message.contains("wrong version number") || error.message.contains("packet length too long") {
            self.init(.unreachable, "The TLS handshake with \(endpoint) failed: what came back is not TLS (a port that does not speak TLS, or a proxy that sent data of its own after its 200 to CONNECT).", alert: nil)
            return
        }
        if error.kind == .tls, error.message.contains("unsupported protocol") {
            self.init(.unreachable, "The TLS handshake with \(endpoint) failed: the server offers no TLS version we accept (TLS 1.2 or newer).", alert: nil)
            return
        }
        self.init(.unreachable, error.message, alert: nil)
    }

    /// A server we cannot trust (its chain does not verify, or its certificate is for another
    /// host): no verdict on the credentials, and `unreachable` (exit 4) because nothing was
    /// sent. `verify` reports it from the handshake it let finish, `push` from the one that
    /// full verification aborted; both word it here.
    package init(untrusted trust: ServerTrustFailure) {
        switch trust.problem {
        case .chain(let verifyError, let missingIssuer):
            var sentence = "The server's certificate chain did not verify: \(verifyError)"
            if let missingIssuer {
                sentence += "; the trust store lacks \"\(missingIssuer)\""
                // apns-protocol.md §3: Apple's gateways chain to this root since 2025.
                sentence += Self.isAppleGatewayRoot(missingIssuer)
                    ? " (APNs servers chain to it since 2025: add it to your CA bundle or update the system's ca-certificates)"
                    : " (trust its certificate: give a CA file that holds it)"
            }
            self.init(.unreachable, sentence + ".", alert: nil)
        case .hostname(let certificateName):
            self.init(.unreachable, "The server's certificate is not valid for \(trust.host) (it is for \(certificateName ?? "another name")).", alert: nil)
        }
    }

    /// The root APNs servers chain to, which older trust stores lack.
    package static func isAppleGatewayRoot(_ issuer: String) -> Bool {
        issuer.contains("USERTrust RSA Certification Authority")
    }

    package init(_ verdict: Verdict, _ sentence: String, alert: String?) {
        self.verdict = verdict
        self.sentence = sentence
        self.alert = alert
    }
}
