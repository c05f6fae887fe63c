// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// `apnskit inspect` end to end: the built binary on fixtures from the mock CA.
@Suite struct InspectCLITests {
    @Test func combinedPEMSaysWhatItIs() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "inspect", f.path("universal.pem")])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("combined PEM: certificate + matching RSA-2048 key"))
        #expect(result.out.contains("Bundle id:    com.example.app"))
        #expect(result.out.contains("Team id:      A1B2C3D4E5"))
        #expect(result.out.contains("Environments: sandbox, production"))
        #expect(result.out.contains("com.example.app.voip (voip)"))
        #expect(result.out.contains("(private key matches)"))
        #expect(result.out.contains("Apple Worldwide Developer Relations Certification Authority"))
    }

    @Test(arguments: [
        ("development.cer", "development", ["sandbox"]),
        ("production.cer", "production", ["production"]),
        ("universal.pem", "universal", ["sandbox", "production"]),
        ("voip.cer", "voip", ["sandbox", "production"]),
        ("passtype.cer", "passTypeId", ["production"]),
    ])
    func jsonReportsTypeAndEnvironments(file: String, type: String, environments: [String]) async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "inspect", "--format", "json", f.path(file)])
        #expect(result.status == 0, "\(result.err)")
        let json = try result.json()
        #expect(json["schemaVersion"] as? Int == 1)
        let leaf = json.leafCertificate
        #expect(leaf["type"] as? String == type)
        #expect(leaf["environments"] as? [String] == environments)
        #expect(leaf["isAPNs"] as? Bool == true)
        #expect(leaf["teamID"] as? String == "A1B2C3D4E5")
        #expect(leaf["keySummary"] as? String == "RSA-2048")
        #expect((leaf["sha256Fingerprint"] as? String)?.count == 95)
        #expect((leaf["sha1Fingerprint"] as? String)?.count == 59)
        #expect(leaf["daysLeft"] as? Int ?? 0 > 300)
        #expect(json.findingCodes.isEmpty)
    }

    @Test func derCertificateFingerprintsMatchOpenSSL() async throws {
        let f = try await Fixtures.shared.get()
        let json = try await run(["apnskit", "inspect", "--format", "json", f.path("development.cer")]).json()
        let openssl = try await run(["openssl", "x509", "-inform", "DER", "-in", f.path("development.cer"), "-noout",
                               "-fingerprint", "-sha256", "-serial"])
        #expect(openssl.out.contains("=" + (json.leafCertificate["sha256Fingerprint"] as? String ?? "-")))
        #expect(openssl.out.contains("serial=" + (json.leafCertificate["serialNumber"] as? String ?? "-")))
        #expect(json.firstFile["kind"] as? String == "certificate")
        #expect(json.firstFile["encoding"] as? String == "der")
    }

    @Test func universalTopicsInJSON() async throws {
        let f = try await Fixtures.shared.get()
        let json = try await run(["apnskit", "inspect", "--format", "json", f.path("universal.pem")]).json()
        let topics = json.leafCertificate["topics"] as? [[String: Any]] ?? []
        #expect(topics.compactMap { $0["topic"] as? String } == ["com.example.app", "com.example.app.voip", "com.example.app.complication"])
        #expect(topics.compactMap { ($0["kinds"] as? [String])?.first } == ["app", "voip", "complication"])
        #expect(json.firstFile["kind"] as? String == "combinedPEM")
        #expect((json.firstFile["privateKeys"] as? [[String: Any]])?.first?["matchesCertificate"] as? Bool == true)
    }

    @Test func expiredAndNotYetValidAreProblems() async throws {
        let f = try await Fixtures.shared.get()
        let expired = try await run(["apnskit", "inspect", "--format", "json", f.path("expired.cer")])
        #expect(expired.status == 1)
        #expect(try expired.json().findingCodes == ["expired"])
        let future = try await run(["apnskit", "inspect", f.path("not-yet-valid.cer")])
        #expect(future.status == 1)
        #expect(future.out.contains("error: not valid until"))
    }

    @Test func expiringSoonIsAWarningOnly() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "inspect", "--format", "json", f.path("expiring-10-days.cer")])
        #expect(result.status == 0)
        let json = try result.json()
        #expect(json.findingCodes == ["expiringSoon"])
        #expect(json.leafCertificate["daysLeft"] as? Int == 10)
    }

    @Test func malformedTopicsAreReportedNotCrashedOn() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "inspect", f.path("malformed-topics.cer")])
        #expect(result.status == 1)
        #expect(result.out.contains("Topics:       MALFORMED extension"))
        #expect(result.out.contains("error: the topics extension (1.2.840.113635.100.6.3.6) is malformed"))
        let json = try await run(["apnskit", "inspect", "--format", "json", f.path("malformed-topics.cer")]).json()
        #expect(json.findingCodes == ["malformedTopics"])
        #expect(json.leafCertificate["topics"] == nil)
        #expect(json.leafCertificate["topicsError"] is String)
    }

    @Test func keyMismatchViaKeyOption() async throws {
        let f = try await Fixtures.shared.get()
        let good = try await run(["apnskit", "inspect", "--key", f.path("key.pem"), f.path("development.cer")])
        #expect(good.status == 0)
        #expect(good.out.contains("(private key matches)"))
        let bad = try await run(["apnskit", "inspect", "--format", "json", "--key", f.path("other-key.pem"), f.path("development.cer")])
        #expect(bad.status == 1)
        #expect(try bad.json().findingCodes == ["keyMismatch"])
    }

    @Test func pkcs12WithPassphrase() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "inspect", "--passin", "env:P12PASS", f.path("universal.p12")], environment: ["P12PASS": "secret"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("PKCS#12: certificate + matching RSA-2048 key"))
        let missing = try await run(["apnskit", "inspect", f.path("universal.p12")])
        #expect(missing.status == 3)
        #expect(missing.out.contains("is encrypted and no passphrase was given"))
    }

    @Test func authKeyCSRAndPlainKey() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "inspect", "--format", "json", f.path("AuthKey_ABC123DEFG.p8"), f.path("request.csr"), f.path("key.pem")])
        #expect(result.status == 0, "\(result.err)")
        let files = try result.json()["files"] as? [[String: Any]] ?? []
        #expect(files.count == 3)
        #expect(files[0]["kind"] as? String == "authKey")
        #expect(files[0]["summary"] as? String == "APNs auth key (.p8): EC P-256, key id ABC123DEFG")
        #expect((files[0]["authKey"] as? [String: Any])?["keyID"] as? String == "ABC123DEFG")
        #expect((files[0]["authKey"] as? [String: Any])?["usable"] as? Bool == true)
        #expect(files[1]["kind"] as? String == "certificateRequest")
        #expect((files[1]["requests"] as? [[String: Any]])?.first?["signatureValid"] as? Bool == true)
        #expect(files[2]["kind"] as? String == "privateKey")
        let text = try await run(["apnskit", "inspect", f.path("AuthKey_ABC123DEFG.p8")])
        #expect(text.out.contains("APNs auth key (.p8): EC P-256, key id ABC123DEFG"))
    }

    @Test func unreadableFilesDoNotStopTheOthers() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "inspect", f.path("garbage.pem"), f.path("missing.cer"), f.path("development.cer")])
        #expect(result.status == 3)
        #expect(result.out.contains("garbage.pem: unreadable"))
        #expect(result.out.contains("missing.cer does not exist"))
        #expect(result.out.contains("Apple Development iOS Push Services [development]"))
        let json = try await run(["apnskit", "inspect", "--format", "json", f.path("garbage.pem")]).json()
        #expect(json.firstFile["kind"] as? String == "unreadable")
        #expect(json.firstFile["errorKind"] as? String == "unreadable")
    }

    @Test func nonAPNsCertificateIsSaidToBeSo() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "inspect", "--format", "json", f.ca + "/server.pem"])
        #expect(result.status == 0)
        let json = try result.json()
        #expect(json.findingCodes == ["notAPNs"])
        #expect(json.leafCertificate["isAPNs"] as? Bool == false)
        #expect(json.leafCertificate["type"] as? String == "other")
    }

    @Test func environmentsFromTheNameWhenExtensionsAreMissing() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "inspect", "--format", "json", f.path("legacy-development.cer")])
        #expect(result.status == 0)
        let json = try result.json()
        #expect(json.leafCertificate["environments"] as? [String] == ["sandbox"])
        #expect(json.leafCertificate["environmentSource"] as? String == "commonName")
        #expect(json.findingCodes == ["environmentFromName"])
        let text = try await run(["apnskit", "inspect", f.path("legacy-development.cer")])
        #expect(text.out.contains("Environments: sandbox (from the name; no extensions)"))
    }

    @Test func truncatedCerSaysTruncated() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "inspect", f.path("truncated.cer")])
        #expect(result.status == 3)
        #expect(result.out.contains("is truncated"))
    }

    @Test func rsaKeyNamedLikeAnAuthKeyIsFlagged() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "inspect", "--format", "json", f.path("AuthKey_RSAKEY0001.p8")])
        #expect(result.status == 1)
        let json = try result.json()
        #expect(json.findingCodes == ["notAuthKey"])
        #expect((json.firstFile["authKey"] as? [String: Any])?["usable"] as? Bool == false)
        let check = try await run(["apnskit", "check", f.path("AuthKey_RSAKEY0001.p8")])
        #expect(check.status == 1)
        #expect(check.out.contains("APNs auth keys are EC P-256"))
    }

    @Test func standardInput() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["sh", "-c", "\"$0\" inspect - < \"$1\"", Binaries.apnskit, f.path("universal.pem")])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.hasPrefix("standard input: combined PEM: certificate + matching RSA-2048 key"))
    }

    @Test func badFormatIsAUsageError() async throws {
        let f = try await Fixtures.shared.get()
        #expect(try await run(["apnskit", "inspect", "--format", "yaml", f.path("development.cer")]).status == 2)
    }
}
