// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import Foundation

/// Whether a CA bundle would accept the APNs gateways' certificate chains, decided without
/// connecting: the library's form of `apnskit trust-report`. Since 2025 the gateways chain to
/// "USERTrust RSA Certification Authority" (docs/apns-protocol.md §3); a service whose bundle
/// lacks it fails every handshake.
public struct APNsGatewayTrust: Sendable {
    /// The root the gateways chain to.
    public let root: String
    /// Environments whose gateway the bundle accepts.
    public let accepted: [APNsEnvironment]
    /// Environments whose gateway it refuses, each with the sentence saying why.
    public let refused: [APNsEnvironment: String]
    /// Every environment's gateway is accepted.
    public var acceptsAll: Bool { refused.isEmpty }

    /// Judges CA certificates held as PEM text (a container's bundle, a Java truststore's
    /// export). Throws ``APNsCredentialError`` when the text holds no certificate.
    public static func evaluate(caCertificatesPEM: [UInt8]) throws(APNsCredentialError) -> APNsGatewayTrust {
        let certificates: [Certificate]
        do {
            certificates = try CredentialFile.load(bytes: caCertificatesPEM, label: "the CA bundle", passphrases: .none).certificates
        } catch let error as APNsCredentialError {
            throw error
        } catch {
            throw APNsCredentialError(.unreadable, "The CA bundle cannot be read: \(error).")
        }
        guard !certificates.isEmpty else { throw APNsCredentialError(.wrongKind, "The CA bundle holds no certificates.") }
        return APNsGatewayTrust(GatewayTrust.evaluate(certificates, source: "the CA bundle"))
    }

    /// Judges the system store OpenSSL reads (`SSL_CERT_FILE`, `SSL_CERT_DIR`, or its default).
    public static func evaluateSystemStore() throws(APNsCredentialError) -> APNsGatewayTrust {
        do {
            return APNsGatewayTrust(GatewayTrust.evaluate(try SystemTrustBundle.certificates(), source: SystemTrustBundle.location))
        } catch let error as APNsCredentialError {
            throw error
        } catch {
            throw APNsCredentialError(.unreadable, "The system CA store cannot be read: \(error).")
        }
    }

    init(_ report: GatewayTrust.Report) {
        root = report.root.name
        accepted = report.verdicts.filter { $0.status == .trusted }.map(\.environment)
        var refused: [APNsEnvironment: String] = [:]
        for verdict in report.verdicts where verdict.status != .trusted {
            refused[verdict.environment] = "\(report.root.name) is \(verdict.status == .missing ? "missing" : verdict.status == .expired ? "expired" : "present only as a look-alike with another key") in \(report.source)"
        }
        self.refused = refused
    }
}
