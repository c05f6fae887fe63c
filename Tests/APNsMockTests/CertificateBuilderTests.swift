// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import Foundation
import OpenSSLCore
import Testing

/// `CertificateBuilder.sign` hands out a finished certificate of its own (issue 32: it handed
/// out the very `X509` it could still change, behind a `Certificate` that calls itself
/// immutable and `Sendable`).
@Suite struct CertificateBuilderTests {
    @Test("Setters called after sign change the builder, never the certificate it handed out")
    func signedCertificateIsItsOwn() throws {
        let key = try PrivateKey.generate(.ec256)
        let builder = try CertificateBuilder()
        let notAfter = Date(timeIntervalSince1970: 2_000_000_000)
        try builder.setSubject([.init(key: "CN", value: "before")])
        try builder.setIssuer(nil)
        try builder.setValidity(notBefore: Date(timeIntervalSince1970: 1_700_000_000), notAfter: notAfter)
        try builder.setPublicKey(key)
        let certificate = try builder.sign(with: key)
        let der = certificate.der

        try builder.setSubject([.init(key: "CN", value: "after")])
        try builder.setValidity(notBefore: Date(timeIntervalSince1970: 1_000_000_000), notAfter: Date(timeIntervalSince1970: 1_100_000_000))
        let second = try builder.sign(with: key)

        #expect(certificate.notAfter == notAfter)
        #expect(certificate.subject.attributes == [.init(key: "CN", value: "before")])
        #expect(certificate.der == der)
        #expect(second.notAfter == Date(timeIntervalSince1970: 1_100_000_000))
        #expect(second.subject.attributes.map(\.value) == ["before", "after"])
    }
}
