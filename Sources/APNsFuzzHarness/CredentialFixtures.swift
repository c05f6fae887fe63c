// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock

/// Keys, Apple-like certificates (from the mock WWDR CA, with topics and environment
/// extensions), CSRs and PKCS#12 files: the valid shapes every credential seed starts from.
struct CredentialFixtures: Sendable {
    let ca: MockCA
    let rsaKey: PrivateKey
    let ecKey: PrivateKey
    let rsaCertificate: Certificate
    let ecCertificate: Certificate
    let rsaRequest: CertificateSigningRequest
    let ecRequest: CertificateSigningRequest
    let pkcs12Files: [[UInt8]]

    static let shared = Result<CredentialFixtures, any Error> { try CredentialFixtures() }

    private init() throws {
        ca = try MockCA.create()
        rsaKey = try PrivateKey.generate(.rsa2048)
        ecKey = try PrivateKey.generate(.ec256)
        rsaCertificate = try ca.issue(forKey: rsaKey, PortalRequest(bundleID: "com.example.fuzz", type: .universal))
        ecCertificate = try ca.issue(forKey: ecKey, PortalRequest(bundleID: "com.example.fuzz.ec", type: .development))
        let subject = [DistinguishedName.Attribute(key: "emailAddress", value: "dev@example.com"),
                       .init(key: "CN", value: "Fuzz Push Key"), .init(key: "C", value: "US")]
        rsaRequest = try CertificateSigningRequest(key: rsaKey, subject: subject)
        ecRequest = try CertificateSigningRequest(key: ecKey, subject: subject)
        let pass = Passphrase(CredentialHarnesses.passphrase)
        pkcs12Files = [
            try PKCS12.create(certificate: rsaCertificate, privateKey: rsaKey, chain: [ca.intermediate], passphrase: pass, format: .modern),
            try PKCS12.create(certificate: rsaCertificate, privateKey: rsaKey, passphrase: pass, format: .legacy),
            try PKCS12.create(certificate: ecCertificate, privateKey: nil, passphrase: pass, format: .legacy),
            try PKCS12.create(certificate: nil, privateKey: ecKey, passphrase: pass, format: .modern),
            try PKCS12.create(certificate: ecCertificate, privateKey: ecKey, passphrase: .empty, format: .modern),
        ]
    }
}
