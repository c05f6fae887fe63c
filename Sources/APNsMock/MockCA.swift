// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
internal import COpenSSL
import Foundation

/// A test certificate authority shaped like Apple's: a root, an intermediate named like
/// Apple's "Worldwide Developer Relations" CA (but marked as a mock in its O field, so nobody
/// mistakes it for Apple's), and a TLS server certificate for the local mock gateway.
///
/// Fixtures are made by it at test time: no real person's key or certificate is ever needed,
/// and expired, wrong-issuer or malformed certificates are one call away.
package struct MockCA: Sendable {
    package let root: Certificate
    package let rootKey: PrivateKey
    package let intermediate: Certificate
    package let intermediateKey: PrivateKey
    package let server: Certificate
    package let serverKey: PrivateKey

    package static let rootSubject: [DistinguishedName.Attribute] = [
        .init(key: "CN", value: "apnskit Mock Root CA"),
        .init(key: "OU", value: "apnskit Mock Certification Authority"),
        .init(key: "O", value: "apnskit Mock (not Apple Inc.)"),
        .init(key: "C", value: "US"),
    ]

    package static let intermediateSubject: [DistinguishedName.Attribute] = [
        .init(key: "CN", value: "Apple Worldwide Developer Relations Certification Authority"),
        .init(key: "OU", value: "G4"),
        .init(key: "O", value: "apnskit Mock (not Apple Inc.)"),
        .init(key: "C", value: "US"),
    ]

    /// Every host name the mock gateway may be reached as (new API, legacy gateway, feedback),
    /// so tests can point a client at 127.0.0.1 with the real host names via SNI.
    package static let serverNames = APNsEnvironment.allCases.flatMap(\.hostNames) + ["localhost"]

    package init(root: Certificate, rootKey: PrivateKey, intermediate: Certificate, intermediateKey: PrivateKey,
                server: Certificate, serverKey: PrivateKey) {
        self.root = root
        self.rootKey = rootKey
        self.intermediate = intermediate
        self.intermediateKey = intermediateKey
        self.server = server
        self.serverKey = serverKey
    }

    /// Creates a new CA with fresh RSA-2048 keys (a few hundred milliseconds).
    package static func create(now: Date = Date(), rootSubject: [DistinguishedName.Attribute] = MockCA.rootSubject,
                              intermediateSubject: [DistinguishedName.Attribute] = MockCA.intermediateSubject) throws -> MockCA {
        let rootKey = try PrivateKey.generate(.rsa2048)
        let root = try CertificateBuilder().build { builder in
            try builder.setSubject(rootSubject)
            try builder.setIssuer(nil)
            try builder.setValidity(notBefore: now.addingTimeInterval(-86_400), notAfter: now.addingTimeInterval(20 * 365 * 86_400))
            try builder.setPublicKey(rootKey)
            try builder.addExtension(NID_basic_constraints, "critical,CA:TRUE")
            try builder.addExtension(NID_key_usage, "critical,keyCertSign,cRLSign")
            try builder.addExtension(NID_subject_key_identifier, "hash")
            try builder.addExtension(NID_authority_key_identifier, "keyid:always")
            return try builder.sign(with: rootKey)
        }

        let intermediateKey = try PrivateKey.generate(.rsa2048)
        let intermediate = try CertificateBuilder().build { builder in
            try builder.setSubject(intermediateSubject)
            try builder.setIssuer(root)
            try builder.setValidity(notBefore: now.addingTimeInterval(-86_400), notAfter: now.addingTimeInterval(10 * 365 * 86_400))
            try builder.setPublicKey(intermediateKey)
            try builder.addExtension(NID_basic_constraints, "critical,CA:TRUE,pathlen:0")
            try builder.addExtension(NID_key_usage, "critical,keyCertSign,cRLSign")
            try builder.addExtension(NID_subject_key_identifier, "hash")
            try builder.addExtension(NID_authority_key_identifier, "keyid:always", issuer: root)
            return try builder.sign(with: rootKey)
        }

        let serverKey = try PrivateKey.generate(.rsa2048)
        let server = try CertificateBuilder().build { builder in
            try builder.setSubject([
                .init(key: "CN", value: "api.sandbox.push.apple.com"),
                .init(key: "O", value: "apnskit Mock APNs gateway (not Apple Inc.)"),
                .init(key: "C", value: "US"),
            ])
            try builder.setIssuer(root)
            try builder.setValidity(notBefore: now.addingTimeInterval(-86_400), notAfter: now.addingTimeInterval(825 * 86_400))
            try builder.setPublicKey(serverKey)
            try builder.addExtension(NID_basic_constraints, "critical,CA:FALSE")
            try builder.addExtension(NID_key_usage, "critical,digitalSignature,keyEncipherment")
            try builder.addExtension(NID_ext_key_usage, "serverAuth")
            let names = serverNames.map { "DNS:\($0)" } + ["IP:127.0.0.1", "IP:::1"]
            try builder.addExtension(NID_subject_alt_name, names.joined(separator: ","))
            try builder.addExtension(NID_subject_key_identifier, "hash")
            try builder.addExtension(NID_authority_key_identifier, "keyid:always", issuer: root)
            return try builder.sign(with: rootKey)
        }
        return MockCA(root: root, rootKey: rootKey, intermediate: intermediate, intermediateKey: intermediateKey,
                      server: server, serverKey: serverKey)
    }
}

extension CertificateBuilder {
    /// Runs `body` on this builder: keeps each certificate's steps in one readable block.
    func build<T>(_ body: (CertificateBuilder) throws -> T) rethrows -> T { try body(self) }
}
