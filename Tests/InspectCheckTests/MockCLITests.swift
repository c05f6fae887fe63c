// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `apnskit mock ca` / `mock issue` end to end, judged by the real `openssl` CLI.
@Suite struct MockCLITests {
    @Test func caThenIssueFromAnOpenSSLRequest() async throws {
        let folder = NSTemporaryDirectory() + "apnskit-mock-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let ca = try await run(["apnskit", "mock", "ca", "-o", folder + "/ca"])
        #expect(ca.status == 0, "\(ca.err)")
        let keyMode = try FileManager.default.attributesOfItem(atPath: folder + "/ca/wwdr-key.pem")[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        let again = try await run(["apnskit", "mock", "ca", "-o", folder + "/ca"])
        #expect(again.status == 2)
        #expect(again.err.contains("already exists"))

        let request = try await run(["openssl", "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", folder + "/key.pem",
                               "-subj", "/emailAddress=dev@example.com/CN=Dev/C=US", "-out", folder + "/request.csr"])
        #expect(request.status == 0)
        let issue = try await run(["apnskit", "mock", "issue", folder + "/request.csr", "--ca", folder + "/ca", "--bundle-id", "com.example.app",
                             "--type", "production", "--team-id", "TEAM987654", "--org", "Example Ltd", "-o", folder + "/aps.cer"])
        #expect(issue.status == 0, "\(issue.err)")
        #expect(issue.out.contains("Apple Production IOS Push Services: com.example.app (production)"))

        let text = try await run(["openssl", "x509", "-inform", "DER", "-in", folder + "/aps.cer", "-noout", "-text"])
        #expect(text.out.contains("Subject: UID = com.example.app, CN = Apple Production IOS Push Services: com.example.app, OU = TEAM987654, O = Example Ltd, C = US"))
        #expect(text.out.contains("1.2.840.113635.100.6.3.2"))
        #expect(!text.out.contains("1.2.840.113635.100.6.3.1:"))
        let pem = try await run(["openssl", "x509", "-inform", "DER", "-in", folder + "/aps.cer", "-out", folder + "/aps.pem"])
        #expect(pem.status == 0)
        let verify = try await run(["openssl", "verify", "-CAfile", folder + "/ca/ca-bundle.pem", folder + "/aps.pem"])
        #expect(verify.status == 0, "\(verify.out)\(verify.err)")
        // The portal's .cer is DER, mode 0644.
        let cerMode = try FileManager.default.attributesOfItem(atPath: folder + "/aps.cer")[.posixPermissions] as? Int
        #expect(cerMode == 0o644)

        // And apnskit reads back what it issued, with the key from openssl.
        let inspect = try await run(["apnskit", "inspect", "--format", "json", "--key", folder + "/key.pem", folder + "/aps.cer"])
        let leaf = try inspect.json().leafCertificate
        #expect(leaf["type"] as? String == "production")
        #expect(leaf["teamID"] as? String == "TEAM987654")
        #expect(leaf["keyMatches"] as? Bool == true)

        let expired = try await run(["apnskit", "mock", "issue", folder + "/request.csr", "--ca", folder + "/ca", "--bundle-id", "com.example.app",
                               "--not-before", "2020-01-01", "--not-after", "2021-01-01", "-o", folder + "/old.cer"])
        #expect(expired.status == 0, "\(expired.err)")
        let dates = try await run(["openssl", "x509", "-inform", "DER", "-in", folder + "/old.cer", "-noout", "-enddate"])
        #expect(dates.out.contains("notAfter=Jan  1 00:00:00 2021 GMT"))
        let check = try await run(["apnskit", "check", "--ca-file", folder + "/ca/ca-bundle.pem", folder + "/old.cer"])
        #expect(check.status == 1)
    }

    @Test func issueUsageAndInputErrors() async throws {
        let f = try await Fixtures.shared.get()
        let noCA = try await run(["apnskit", "mock", "issue", f.path("request.csr"), "--ca", f.path("nowhere"), "--bundle-id", "b", "-o", "-"])
        #expect(noCA.status == 3)
        #expect(noCA.err.contains("is not a mock CA folder"))
        let badType = try await run(["apnskit", "mock", "issue", f.path("request.csr"), "--ca", f.ca, "--bundle-id", "b", "--type", "enterprise", "-o", "-"])
        #expect(badType.status == 2)
        let halfWindow = try await run(["apnskit", "mock", "issue", f.path("request.csr"), "--ca", f.ca, "--bundle-id", "b", "--not-before", "2020-01-01", "-o", "-"])
        #expect(halfWindow.status == 2)
        let badDate = try await run(["apnskit", "mock", "issue", f.path("request.csr"), "--ca", f.ca, "--bundle-id", "b",
                               "--not-before", "yesterday", "--not-after", "2030-01-01", "-o", "-"])
        #expect(badDate.status == 2)
        #expect(badDate.err.contains("--not-before 'yesterday' is not a date"))
        let notCSR = try await run(["apnskit", "mock", "issue", f.path("development.cer"), "--ca", f.ca, "--bundle-id", "b", "-o", "-"])
        #expect(notCSR.status == 3)
    }
}
