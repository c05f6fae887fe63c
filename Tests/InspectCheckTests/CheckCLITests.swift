// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import Foundation
import Testing

/// `apnskit check` end to end: statuses, reasons, summary line, exit codes, JSON.
@Suite struct CheckCLITests {
    /// The status word on the line for `file`.
    func status(_ output: String, _ file: String) -> String? {
        output.split(separator: "\n").first { $0.contains("/" + file + ":") }?.split(separator: " ").first.map(String.init)
    }

    @Test func goodFolderPassesWithCAFile() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "check", "--ca-file", f.bundle, "--require-key", "--environment", "production",
                              f.path("good/apns-universal.pem")])
        #expect(result.status == 0, "\(result.out)")
        #expect(status(result.out, "apns-universal.pem") == "OK")
        #expect(result.out.contains("check passed: 1 file, 1 OK, 0 WARN, 0 FAIL, 0 UNREADABLE"))
    }

    @Test func folderWalkFindsCredentialFiles() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "check", "--ca-file", f.bundle, f.path("good")])
        #expect(result.status == 0, "\(result.out)")
        #expect(status(result.out, "apns-universal.pem") == "OK")
        #expect(status(result.out, "production.cer") == "OK")
        #expect(result.out.contains("2 files, 2 OK"))
    }

    @Test func withoutCAFileItWarnsAndStrictFails() async throws {
        let f = try await Fixtures.shared.get()
        let lenient = try await run(["apnskit", "check", f.path("development.cer")])
        #expect(lenient.status == 0)
        #expect(status(lenient.out, "development.cer") == "WARN")
        #expect(lenient.out.contains("chain not checked (no --ca-file)"))
        let strict = try await run(["apnskit", "check", "--strict", f.path("development.cer")])
        #expect(strict.status == 1)
        #expect(strict.out.contains("check FAILED"))
    }

    @Test(arguments: [
        ("expired.cer", "expired on"),
        ("not-yet-valid.cer", "not valid until"),
        ("expiring-10-days.cer", "expires in 10 days"),
        ("wrong-issuer.cer", "chain does not verify to"),
        ("malformed-topics.cer", "topics extension is malformed"),
    ])
    func problemCertificatesFail(file: String, reason: String) async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "check", "--ca-file", f.bundle, f.path(file)])
        #expect(result.status == 1, "\(result.out)")
        #expect(status(result.out, file) == "FAIL")
        #expect(result.out.contains(reason), "\(result.out)")
    }

    @Test func minDaysMovesTheHorizon() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "check", "--ca-file", f.bundle, "--min-days", "5", f.path("expiring-10-days.cer")])
        #expect(result.status == 0, "\(result.out)")
        let tight = try await run(["apnskit", "check", "--ca-file", f.bundle, "--min-days", "500", f.path("development.cer")])
        #expect(tight.status == 1)
        #expect(tight.out.contains("(--min-days 500)"))
    }

    @Test func environmentTopicAndKeyRequirements() async throws {
        let f = try await Fixtures.shared.get()
        let environment = try await run(["apnskit", "check", "--ca-file", f.bundle, "--environment", "production", f.path("development.cer")])
        #expect(environment.status == 1)
        #expect(environment.out.contains("not valid for production (sandbox only)"))

        let topic = try await run(["apnskit", "check", "--ca-file", f.bundle, "--topic", "com.other.app", f.path("universal.pem")])
        #expect(topic.status == 1)
        #expect(topic.out.contains("topic com.other.app not covered (covers: com.example.app, com.example.app.voip, com.example.app.complication)"))
        let voip = try await run(["apnskit", "check", "--ca-file", f.bundle, "--topic", "com.example.app.voip", f.path("universal.pem")])
        #expect(voip.status == 0, "\(voip.out)")

        let key = try await run(["apnskit", "check", "--ca-file", f.bundle, "--require-key", f.path("production.cer"), f.path("universal.pem")])
        #expect(key.status == 1)
        #expect(status(key.out, "production.cer") == "FAIL")
        #expect(key.out.contains("no private key in the file (--require-key)"))
        #expect(status(key.out, "universal.pem") == "OK")
    }

    @Test func unreadableFilesAreReportedAndTheRestChecked() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "check", "--ca-file", f.bundle, f.path("garbage.pem"), f.path("expired.cer"),
                              f.path("production.cer"), f.path("universal.p12")])
        #expect(result.status == 3)
        #expect(status(result.out, "garbage.pem") == "UNREADABLE")
        #expect(status(result.out, "universal.p12") == "UNREADABLE")
        #expect(result.out.contains("is encrypted and no passphrase was given"))
        #expect(status(result.out, "expired.cer") == "FAIL")
        #expect(status(result.out, "production.cer") == "OK")
        #expect(result.out.contains("4 files, 1 OK, 0 WARN, 1 FAIL, 2 UNREADABLE"))

        let withPass = try await run(["apnskit", "check", "--ca-file", f.bundle, "--passin", "env:P12PASS", f.path("universal.p12")],
                               environment: ["P12PASS": "secret"])
        #expect(withPass.status == 0, "\(withPass.out)")
    }

    @Test func authKeysAndCSRs() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "check", f.path("AuthKey_ABC123DEFG.p8"), f.path("request.csr")])
        #expect(result.status == 0)
        #expect(status(result.out, "AuthKey_ABC123DEFG.p8") == "OK")
        #expect(status(result.out, "request.csr") == "WARN")
    }

    @Test func jsonSchema() async throws {
        let f = try await Fixtures.shared.get()
        let result = try await run(["apnskit", "check", "--format", "json", "--ca-file", f.bundle, f.path("expired.cer"), f.path("production.cer")])
        #expect(result.status == 1)
        let json = try result.json()
        #expect(json["schemaVersion"] as? Int == 1)
        let results = json["results"] as? [[String: Any]] ?? []
        #expect(results.map { $0["status"] as? String } == ["FAIL", "OK"])
        #expect((results[0]["reasons"] as? [String])?.first?.hasPrefix("expired on") == true)
        #expect(results[1]["bundleID"] as? String == "com.example.app")
        #expect(results[1]["environments"] as? [String] == ["production"])
        let summary = json["summary"] as? [String: Any] ?? [:]
        #expect(summary["files"] as? Int == 2)
        #expect(summary["fail"] as? Int == 1)
        #expect(summary["exitCode"] as? Int == 1)
    }

    @Test func usageErrors() async throws {
        let f = try await Fixtures.shared.get()
        #expect(try await run(["apnskit", "check", "--environment", "staging", f.path("production.cer")]).status == 2)
        let badCA = try await run(["apnskit", "check", "--ca-file", f.path("key.pem"), f.path("production.cer")])
        #expect(badCA.status == 3)
        #expect(badCA.err.contains("not CA certificates"))
    }

    @Test func thousandCertificatesInOneFolder() async throws {
        let f = try await Fixtures.shared.get()
        let folder = NSTemporaryDirectory() + "apnskit-thousand-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder + "/nested", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ca = try MockCA.load(from: f.ca)
        let key = try PrivateKey.generate(.ec256)
        for index in 0..<1000 {
            let certificate = try ca.issue(forKey: key, PortalRequest(bundleID: "com.example.app\(index)", type: .universal))
            let sub = index % 2 == 0 ? "" : "/nested"
            try write(certificate.der, folder + sub + "/app\(index).cer")
        }
        try write(Array("ignored".utf8), folder + "/notes.txt")
        let result = try await run(["apnskit", "check", "--format", "json", "--ca-file", f.bundle, folder])
        #expect(result.status == 0, "\(result.err)")
        let json = try result.json()
        let summary = json["summary"] as? [String: Any] ?? [:]
        #expect(summary["files"] as? Int == 1000)
        #expect(summary["ok"] as? Int == 1000)
    }
}
