// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import Foundation

/// Whether a CA bundle would accept the APNs gateways' server chains, decided without
/// connecting: the gateways chain to a known root (docs/apns-protocol.md §3), so the question is
/// whether the bundle holds that root's key. A provider whose bundle lacks it fails every
/// handshake; this says so before deployment, for the system store, a container's bundle or a
/// Java `cacerts` exported to PEM.
package enum GatewayTrust {
    /// A root CA the gateways chain to, named by its key (see `Certificate.publicKeySHA256`).
    package struct Root: Sendable, Equatable {
        package let name: String
        /// SHA-256 of the root's SubjectPublicKeyInfo, from Debian's ca-certificates copy of the
        /// root (`GatewayTrustTests` recomputes it with the openssl CLI from that file).
        package let publicKeySHA256: String
        /// From when each environment's gateways chain to it (docs/apns-protocol.md §3).
        package let since: [APNsEnvironment: String]
    }

    /// The root both gateways chain to since 2025.
    package static let currentRoot = Root(
        name: "USERTrust RSA Certification Authority",
        publicKeySHA256: "c784333d20bcd742b9fdc3236f4e509b8937070e73067e254dd3bf9c45bf4dde",
        since: [.sandbox: "2025-01-20", .production: "2025-02-24"])

    /// Roots the gateways chained to before, by name: a bundle holding only these worked once
    /// and fails now, which deserves its own sentence.
    package static let formerRoots = ["AAA Certificate Services", "GeoTrust Global CA"]

    /// One gateway's verdict.
    package struct Verdict: Sendable, Equatable {
        package enum Status: String, Sendable { case trusted, expired, missing, impostor }
        package let environment: APNsEnvironment
        package let host: String
        package let status: Status
        /// The bundle's certificate holding the root's key (trusted, expired), or carrying its
        /// name with another key (impostor).
        package let subject: String?
        package let notAfter: Date?
    }

    package struct Report: Sendable {
        package let source: String
        package let certificateCount: Int
        package let root: Root
        package let verdicts: [Verdict]
        /// Former roots the bundle holds (by common name).
        package let formerRootsPresent: [String]
        package var accepted: Bool { verdicts.allSatisfy { $0.status == .trusted } }
    }

    /// Judges `certificates` (a bundle, labelled `source`) for `environments`.
    package static func evaluate(_ certificates: [Certificate], source: String, environments: [APNsEnvironment] = APNsEnvironment.allCases,
                                 now: Date = Date()) -> Report {
        let root = currentRoot
        // Each certificate's key hashed once (a system bundle holds about 140).
        let holders = certificates.filter { $0.publicKeySHA256 == root.publicKeySHA256 }
        let holder = holders.first { $0.notAfter > now } ?? holders.first
        let impostor = certificates.first { candidate in
            candidate.subject.commonName == root.name && !holders.contains { $0 === candidate }
        }
        let verdicts = environments.map { environment -> Verdict in
            if let holder {
                return Verdict(environment: environment, host: environment.host, status: holder.notAfter > now ? .trusted : .expired,
                               subject: holder.subject.description, notAfter: holder.notAfter)
            }
            if let impostor {
                return Verdict(environment: environment, host: environment.host, status: .impostor,
                               subject: impostor.subject.description, notAfter: impostor.notAfter)
            }
            return Verdict(environment: environment, host: environment.host, status: .missing, subject: nil, notAfter: nil)
        }
        let former = formerRoots.filter { name in certificates.contains { $0.subject.commonName == name } }
        return Report(source: source, certificateCount: certificates.count, root: root, verdicts: verdicts, formerRootsPresent: former)
    }
}
