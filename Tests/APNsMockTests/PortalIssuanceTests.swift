// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsMock
import Foundation
import Testing

/// Certificates from the mock CA must look like the portal's to OpenSSL itself: subject
/// order, extensions, chain. The real `openssl` CLI is the judge.
@Suite struct PortalIssuanceTests {
    @Test func universalCertificateHasApplesShape() async throws {
        let ca = try Shared.ca.get()
        let key = try Shared.key.get()
        let request = try CertificateSigningRequest(key: key, subject: [.init(key: "emailAddress", value: "dev@example.com"),
                                                                        .init(key: "CN", value: "Dev"), .init(key: "C", value: "US")])
        let certificate = try ca.issue(request, PortalRequest(bundleID: "com.example.app", type: .universal, teamID: "TEAM123456",
                                                             organization: "Example Ltd"))
        let attributes = certificate.subject.attributes.map { "\($0.key)=\($0.value)" }
        #expect(attributes == ["UID=com.example.app", "CN=Apple Push Services: com.example.app", "OU=TEAM123456",
                               "O=Example Ltd", "C=US"])
        #expect(certificate.extensionValue(oid: "1.2.840.113635.100.6.3.1") == [0x05, 0x00])
        #expect(certificate.extensionValue(oid: "1.2.840.113635.100.6.3.2") == [0x05, 0x00])
        #expect(key.matches(certificate))
        #expect(certificate.isIssued(by: ca.intermediate))
        #expect(!certificate.isCA)

        let folder = try temporaryFolder()
        defer { cleanup(folder) }
        try write(certificate.der, folder + "/aps.cer")
        try write(ca.intermediate.pem() + ca.root.pem(), folder + "/bundle.pem")
        try write(certificate.pem(), folder + "/aps.pem")

        let text = try await run(["openssl", "x509", "-inform", "DER", "-in", folder + "/aps.cer", "-noout", "-text"])
        #expect(text.status == 0)
        #expect(text.out.contains("Subject: UID = com.example.app, CN = Apple Push Services: com.example.app, OU = TEAM123456, O = Example Ltd, C = US"))
        #expect(text.out.contains("Issuer: CN = Apple Worldwide Developer Relations Certification Authority, OU = G4"))
        #expect(text.out.contains("sha256WithRSAEncryption"))
        #expect(text.out.contains("X509v3 Key Usage: critical\n                Digital Signature\n"))
        #expect(text.out.contains("TLS Web Client Authentication"))
        #expect(text.out.contains("CA:FALSE"))
        #expect(text.out.contains("Public-Key: (2048 bit)"))

        let verify = try await run(["openssl", "verify", "-CAfile", folder + "/bundle.pem", folder + "/aps.pem"])
        #expect(verify.status == 0, "\(verify.out) \(verify.err)")

        // The topics extension's value, parsed by OpenSSL's own ASN.1 dumper.
        let topics = try #require(certificate.extensionValue(oid: APNsTopics.oid))
        try write(topics, folder + "/topics.der")
        let dump = try await run(["openssl", "asn1parse", "-inform", "DER", "-in", folder + "/topics.der"])
        #expect(dump.status == 0)
        let lines = dump.out.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("cons: SEQUENCE") == true)
        #expect(lines.filter { $0.contains("UTF8STRING") }.map { $0.components(separatedBy: ":").last ?? "" }
                == ["com.example.app", "app", "com.example.app.voip", "voip", "com.example.app.complication", "complication"])
        #expect(lines.filter { $0.contains("cons: SEQUENCE") }.count == 4)
    }

    @Test(arguments: [
        (APNsCertificateType.development, "Apple Development IOS Push Services: ", [APNsEnvironment.sandbox]),
        (.production, "Apple Production IOS Push Services: ", [.production]),
        (.universal, "Apple Push Services: ", [.sandbox, .production]),
        (.voip, "VoIP Services: ", [.sandbox, .production]),
        (.passTypeID, "Pass Type ID: ", [.production]),
    ])
    func typesCarryTheirPrefixAndEnvironments(type: APNsCertificateType, prefix: String, environments: [APNsEnvironment]) throws {
        let ca = try Shared.ca.get()
        let certificate = try ca.issue(forKey: try Shared.key.get(), PortalRequest(bundleID: "com.example.app", type: type))
        let info = certificate.apnsInfo()
        #expect(info.commonName == prefix + "com.example.app")
        #expect(info.type == type)
        #expect(info.environments == environments)
        #expect(info.environmentSource == .extension)
        #expect(info.isAPNs)
        #expect(info.bundleID == "com.example.app")
        #expect(info.teamID == "A1B2C3D4E5")
        #expect(info.findings.isEmpty)
        #expect(info.keyAlgorithm == "RSA" && info.keyBits == 2048)
    }

    @Test func defaultValidityIsThirteenMonths() async throws {
        let ca = try Shared.ca.get()
        let now = Date(timeIntervalSince1970: 1_767_225_600) // 2026-01-01T00:00:00Z
        let certificate = try ca.issue(forKey: try Shared.key.get(), PortalRequest(bundleID: "b"), now: now)
        #expect(certificate.notBefore == now)
        #expect(certificate.notAfter == Date(timeIntervalSince1970: 1_801_440_000)) // 2027-02-01T00:00:00Z
    }

    @Test func expiredWindowIsWrittenAsGiven() async throws {
        let ca = try Shared.ca.get()
        let notBefore = Date(timeIntervalSince1970: 1_577_836_800) // 2020-01-01
        let notAfter = Date(timeIntervalSince1970: 1_609_459_200)  // 2021-01-01
        let certificate = try ca.issue(forKey: try Shared.key.get(),
                                       PortalRequest(bundleID: "b", validity: .window(notBefore: notBefore, notAfter: notAfter)))
        let info = certificate.apnsInfo()
        #expect(info.notAfter == notAfter)
        #expect(info.findings.map(\.code) == ["expired"])
        #expect(info.daysLeft < 0)
    }

    @Test func malformedTopicsBecomeAFindingNotACrash() async throws {
        let ca = try Shared.ca.get()
        let certificate = try ca.issue(forKey: try Shared.key.get(),
                                       PortalRequest(bundleID: "com.example.app", type: .universal, topicsDEROverride: [0x30, 0x05, 0x0C, 0x09, 0x61]))
        let info = certificate.apnsInfo()
        #expect(info.topics == nil)
        #expect(info.topicsError?.contains("declares") == true)
        #expect(info.findings.contains { $0.code == "malformedTopics" && $0.severity == .error })
        #expect(info.covers(topic: "com.example.app") == nil)
    }

    @Test func topicsCoverage() async throws {
        let ca = try Shared.ca.get()
        let key = try Shared.key.get()
        let universal = try ca.issue(forKey: key, PortalRequest(bundleID: "com.x", type: .universal)).apnsInfo()
        #expect(universal.covers(topic: "com.x") == true)
        #expect(universal.covers(topic: "com.x.voip") == true)
        #expect(universal.covers(topic: "com.y") == false)
        let pass = try ca.issue(forKey: key, PortalRequest(bundleID: "pass.com.x", type: .passTypeID)).apnsInfo()
        #expect(pass.topics == nil)
        #expect(pass.covers(topic: "pass.com.x") == true)
    }

    @Test func keyMismatchIsReported() async throws {
        let ca = try Shared.ca.get()
        let certificate = try ca.issue(forKey: try Shared.key.get(), PortalRequest(bundleID: "b"))
        let other = try PrivateKey.generate(.ec256)
        let info = certificate.apnsInfo(key: other)
        #expect(info.keyMatches == false)
        #expect(info.findings.map(\.code) == ["keyMismatch"])
        #expect(certificate.apnsInfo(key: try Shared.key.get()).keyMatches == true)
    }

    @Test func tamperedRequestIsRefused() async throws {
        let ca = try Shared.ca.get()
        let request = try CertificateSigningRequest(key: try Shared.key.get(), subject: [.init(key: "CN", value: "Dev")])
        var der = request.der
        der[der.count - 1] ^= 0xFF
        let tampered = try CertificateSigningRequest(bytes: der, label: "bad.csr")
        #expect {
            _ = try ca.issue(tampered, PortalRequest(bundleID: "b"), label: "bad.csr")
        } throws: { error in
            (error as? APNsCredentialError)?.kind == .unreadable && "\(error)".contains("bad.csr")
        }
    }

    @Test func caFolderLayoutAndModes() async throws {
        let folder = try temporaryFolder()
        defer { cleanup(folder) }
        let ca = try Shared.ca.get()
        try ca.write(to: folder + "/ca", force: false)
        for (name, mode) in [("root.pem", 0o644), ("root-key.pem", 0o600), ("wwdr.pem", 0o644), ("wwdr-key.pem", 0o600),
                             ("server.pem", 0o644), ("server-key.pem", 0o600), ("ca-bundle.pem", 0o644), ("README.txt", 0o644)] {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/ca/" + name)
            #expect((attributes[.posixPermissions] as? Int) == mode, "\(name)")
        }
        #expect(throws: APNsCredentialError.self) { try ca.write(to: folder + "/ca", force: false) }
        let loaded = try MockCA.load(from: folder + "/ca")
        #expect(loaded.intermediate.fingerprint(.sha256) == ca.intermediate.fingerprint(.sha256))

        let server = try await run(["openssl", "x509", "-in", folder + "/ca/server.pem", "-noout", "-ext", "subjectAltName,extendedKeyUsage"])
        for name in MockCA.serverNames { #expect(server.out.contains("DNS:\(name)")) }
        #expect(server.out.contains("IP Address:127.0.0.1"))
        #expect(server.out.contains("IP Address:0:0:0:0:0:0:0:1"))
        #expect(server.out.contains("TLS Web Server Authentication"))
        let verify = try await run(["openssl", "verify", "-CAfile", folder + "/ca/root.pem", folder + "/ca/server.pem"])
        #expect(verify.status == 0)
        let intermediate = try await run(["openssl", "verify", "-CAfile", folder + "/ca/root.pem", folder + "/ca/wwdr.pem"])
        #expect(intermediate.status == 0)
    }
}
