// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNs
import Foundation
import Testing
import TestSupport

/// Issue 26 from the library, `import APNs` only: a certificate's revocation status asked of
/// its issuer (the mock CA's responder, started by `apnskit mock serve`), and a CA bundle judged
/// for the gateways' root (Debian's bundle, and one root that is not it).
@Suite struct RevocationAndTrustAPITests {
    @Test func revocationStatusOfAnIdentity() async throws {
        let folder = NSTemporaryDirectory() + "apnskit-revocation-api-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The revocation URL is written into the certificates before the mock listens on it:
        // the port is held (`ReservedPort`) until the test ends, and the mock binds beside it.
        let reservation = ReservedPort()
        defer { withExtendedLifetime(reservation) {} }
        let port = reservation.port
        func apnskit(_ arguments: [String]) async throws {
            let result = try await Binaries.apnskit(arguments)
            #expect(result.status == 0, "\(arguments.prefix(2)): \(result.stderr)")
        }
        try await apnskit(["mock", "ca", "-o", folder + "/ca", "--revocation-url", "http://127.0.0.1:\(port)"])
        _ = try await Binaries.openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", folder + "/key.pem",
                                        "-subj", "/CN=push", "-out", folder + "/push.csr"])
        for name in ["kept", "revoked"] {
            try await apnskit(["mock", "issue", folder + "/push.csr", "--ca", folder + "/ca", "--bundle-id", "com.example.app", "-o", folder + "/\(name).cer"])
            try await apnskit(["combine", folder + "/\(name).cer", folder + "/key.pem", "-o", folder + "/\(name).pem"])
        }
        try await apnskit(["mock", "revoke", folder + "/revoked.cer", "--ca", folder + "/ca", "--reason", "superseded"])
        let (server, _) = try await BackgroundProcess.mockServe(["--ca", folder + "/ca", "--port", "0", "--no-legacy", "--no-feedback", "-q"],
                                                                portsFile: folder + "/ports.json")
        defer { server.kill() }
        let issuers = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/ca/ca-bundle.pem")))

        let kept = try APNsIdentity.load(contentsOf: [folder + "/kept.pem"])
        let good = await kept.revocationStatus(issuerCertificatesPEM: issuers)
        #expect(good.state == .good && good.source == "http://127.0.0.1:\(port)/ocsp", "\(good)")
        let revoked = await (try APNsIdentity.load(contentsOf: [folder + "/revoked.pem"])).revocationStatus(issuerCertificatesPEM: issuers)
        guard case .revoked(_, let reason) = revoked.state else { Issue.record("expected revoked: \(revoked)"); return }
        #expect(reason == "superseded")
        // Without the issuer at hand there is nothing to ask.
        let unknownIssuer = await kept.revocationStatus()
        #expect(unknownIssuer.state == .unavailable && unknownIssuer.description.contains("issuer"), "\(unknownIssuer)")
    }

    @Test func gatewayTrustOfABundle() throws {
        let debian = Array(try Data(contentsOf: URL(fileURLWithPath: "/etc/ssl/certs/ca-certificates.crt")))
        let accepted = try APNsGatewayTrust.evaluate(caCertificatesPEM: debian)
        #expect(accepted.acceptsAll && Set(accepted.accepted) == [.sandbox, .production] && accepted.root == "USERTrust RSA Certification Authority")
        let other = Array(try Data(contentsOf: URL(fileURLWithPath: "/etc/ssl/certs/ISRG_Root_X1.pem")))
        let refused = try APNsGatewayTrust.evaluate(caCertificatesPEM: other)
        #expect(!refused.acceptsAll && refused.refused[.production]?.contains("is missing") == true, "\(refused.refused)")
        #expect(throws: APNsCredentialError.self) { try APNsGatewayTrust.evaluate(caCertificatesPEM: Array("not a bundle".utf8)) }
    }
}
