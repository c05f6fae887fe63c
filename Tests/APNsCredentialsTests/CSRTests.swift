// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Testing
import TestSupport

@Suite("Certificate signing requests like Keychain Access makes")
struct CSRTests {
    @Test("CSR verifies with openssl req -verify and has Keychain's subject order", arguments: [PrivateKey.Kind.rsa2048, .ec256])
    func keychainLikeCSR(kind: PrivateKey.Kind) async throws {
        let dir = try TemporaryDirectory()
        let key = try PrivateKey.generate(kind)
        let request = try CertificateSigningRequest(key: key, subject: [
            .init(key: "emailAddress", value: "dev@example.com"),
            .init(key: "CN", value: "Example Push Ü"),
            .init(key: "C", value: "DE"),
        ])
        #expect(request.signatureIsValid)
        #expect(request.matches(key))
        #expect(!request.matches(try PrivateKey.generate(kind)))
        let path = try dir.write("req.csr", try request.pem())
        let verified = try await Binaries.openssl(["req", "-in", path, "-verify", "-noout", "-subject", "-nameopt", "RFC2253,-esc_msb"])
        #expect(verified.status == 0, "\(verified)")
        #expect(verified.stderr.contains("verify OK") || verified.stdout.contains("verify OK"))
        #expect(verified.stdout.contains("C=DE,CN=Example Push Ü,emailAddress=dev@example.com"))
        let text = try await Binaries.openssl(["req", "-in", path, "-noout", "-text"])
        #expect(text.stdout.contains("sha256With") || text.stdout.contains("ecdsa-with-SHA256"))
        let reread = try CertificateSigningRequest(bytes: try dir.read("req.csr"), label: path)
        #expect(reread.subject.attributes.map(\.key) == ["emailAddress", "CN", "C"])
    }
}
