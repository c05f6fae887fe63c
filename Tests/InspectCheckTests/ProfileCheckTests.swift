// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Foundation
import Testing

/// `apnskit check` over provisioning profiles: the expiry horizon, and the cross-check against
/// push credentials (app id, aps-environment, team), each with a mismatched credential.
@Suite struct ProfileCheckTests {
    /// The status word on the line for `file`.
    func status(_ output: String, _ file: String) -> String? {
        output.split(separator: "\n").first { $0.contains("/" + file + ":") }?.split(separator: " ").first.map(String.init)
    }

    @Test(arguments: [
        ("development.mobileprovision", "dev.cer", nil),
        ("development.mobileprovision", "universal.cer", nil),
        ("development.mobileprovision", "prod.cer", "aps-environment is development (sandbox device tokens) but push certificate"),
        ("production.mobileprovision", "prod.cer", nil),
        ("production.mobileprovision", "universal.cer", nil),
        ("production.mobileprovision", "dev.cer", "serves only sandbox; use a production or universal (Apple Push Services) certificate"),
        ("production.mobileprovision", "other-app.cer", "app id A1B2C3D4E5.com.example.app does not match the bundle id of push certificate"),
        ("production.mobileprovision", "other-team.cer", "the profile's team A1B2C3D4E5 is not the team Z9Y8X7W6V5"),
        ("production.mobileprovision", "AuthKey_ABC123DEFG.p8", nil),
        ("enterprise.mobileprovision", "prod.cer", nil),
        ("enterprise.mobileprovision", "dev.cer", "serves only sandbox"),
        ("enterprise.mobileprovision", "other-team.cer", "is not the team Z9Y8X7W6V5"),
        ("wildcard.mobileprovision", "dev.cer", nil),
        ("wildcard.mobileprovision", "other-app.cer", "app id A1B2C3D4E5.com.example.* does not match the bundle id"),
        ("wildcard.mobileprovision", "prod.cer", "serves only production"),
        ("mac.provisionprofile", "dev.cer", "serves only sandbox"),
        ("no-push.mobileprovision", "dev.cer", "the profile has no aps-environment entitlement"),
        ("no-push.mobileprovision", "AuthKey_ABC123DEFG.p8", "no device token to send to with token key"),
        ("wildcard-no-push.mobileprovision", "prod.cer", "a wildcard app id cannot have push"),
    ] as [(String, String, String?)])
    func crossCheckAgainstPushCredential(profile: String, credential: String, failure: String?) async throws {
        let f = try await ProfileFixtures.shared.get()
        let result = try await run(["apnskit", "check", "--ca-file", f.path("signer.pem"), f.path(profile), "--push-credential", f.path(credential)])
        if let failure {
            #expect(result.status == 1, "\(result.out)")
            #expect(status(result.out, profile) == "FAIL")
            #expect(result.out.contains(failure), "\(result.out)")
        } else {
            #expect(result.status == 0, "\(result.out) \(result.err)")
            #expect(status(result.out, profile) == "OK", "\(result.out)")
        }
        // The credential itself is not gated.
        #expect(!result.out.contains("/" + credential + ":"))
    }

    /// Credentials in the same run count too; certificates for other apps are ignored once
    /// one certificate matches the app id.
    @Test func sameRunCredentialsAreCrossChecked() async throws {
        let f = try await ProfileFixtures.shared.get()
        let bad = try await run(["apnskit", "check", "--format", "json", "--ca-file", f.bundle, f.path("dev.cer"), f.path("production.mobileprovision")])
        #expect(bad.status == 1)
        let results = try bad.json()["results"] as? [[String: Any]] ?? []
        #expect(results.map { $0["status"] as? String } == ["OK", "FAIL"])
        #expect((results.last?["reasons"] as? [String])?.first?.contains("serves only sandbox") == true)
        #expect((results.last?["profile"] as? [String: Any])?["apsEnvironment"] as? String == "production")
        let good = try await run(["apnskit", "check", "--ca-file", f.path("trust.pem"), "--push-credential", f.path("other-app.cer"), f.path("universal.cer"),
                            f.path("development.mobileprovision")])
        #expect(good.status == 0, "\(good.out)")
        #expect(status(good.out, "universal.cer") == "OK")
        #expect(status(good.out, "development.mobileprovision") == "OK")
    }

    @Test func expiryHorizon() async throws {
        let f = try await ProfileFixtures.shared.get()
        let expired = try await run(["apnskit", "check", "--ca-file", f.path("signer.pem"), f.path("expired.mobileprovision")])
        #expect(expired.status == 1)
        #expect(expired.out.contains("profile expired on"), "\(expired.out)")
        let soon = try await run(["apnskit", "check", "--ca-file", f.path("signer.pem"), f.path("expiring.mobileprovision")])
        #expect(soon.status == 1)
        #expect(soon.out.contains("profile expires in 9 days") || soon.out.contains("profile expires in 10 days"), "\(soon.out)")
        let later = try await run(["apnskit", "check", "--ca-file", f.path("signer.pem"), "--min-days", "5", f.path("expiring.mobileprovision")])
        #expect(later.status == 0, "\(later.out)")
    }

    @Test func environmentAndTopicFlagsApplyToProfiles() async throws {
        let f = try await ProfileFixtures.shared.get()
        let wrong = try await run(["apnskit", "check", "--ca-file", f.path("signer.pem"), "--environment", "production", f.path("development.mobileprovision")])
        #expect(wrong.status == 1)
        #expect(wrong.out.contains("not for production; build with a profile whose aps-environment is production"), "\(wrong.out)")
        let topic = try await run(["apnskit", "check", "--ca-file", f.path("signer.pem"), "--topic", "com.example.app.voip", f.path("wildcard.mobileprovision")])
        #expect(topic.status == 0, "\(topic.out)")
        let other = try await run(["apnskit", "check", "--ca-file", f.path("signer.pem"), "--topic", "com.other.app", f.path("production.mobileprovision")])
        #expect(other.status == 1)
        #expect(other.out.contains("does not cover topic com.other.app"))
    }

    @Test func unknownEnvironmentFailsAndExpiredDeveloperCertificatesWarn() async throws {
        let f = try await ProfileFixtures.shared.get()
        let bogus = try await run(["apnskit", "check", "--ca-file", f.path("signer.pem"), f.path("bogus-aps.mobileprovision")])
        #expect(bogus.status == 1)
        #expect(bogus.out.contains("aps-environment is \"staging\", neither development nor production"), "\(bogus.out)")
        let inspected = try await run(["apnskit", "inspect", f.path("bogus-aps.mobileprovision")])
        #expect(inspected.status == 1)
        let old = try await run(["apnskit", "check", "--ca-file", f.path("signer.pem"), f.path("old-certificates.mobileprovision")])
        #expect(old.status == 0, "\(old.out)")
        #expect(status(old.out, "old-certificates.mobileprovision") == "WARN")
        #expect(old.out.contains("every developer certificate in the profile has expired"), "\(old.out)")
    }

    @Test func withoutCAFileTheSignatureIsAWarning() async throws {
        let f = try await ProfileFixtures.shared.get()
        let result = try await run(["apnskit", "check", f.path("production.mobileprovision")])
        #expect(result.status == 0)
        #expect(status(result.out, "production.mobileprovision") == "WARN")
        #expect(result.out.contains("signature not verified (no --ca-file)"))
    }

    @Test func folderWalkFindsProfiles() async throws {
        let f = try await ProfileFixtures.shared.get()
        let folder = f.path("walk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: f.path("mac.provisionprofile"), toPath: folder + "/App.provisionprofile")
        try FileManager.default.copyItem(atPath: f.path("dev.cer"), toPath: folder + "/dev.cer")
        let result = try await run(["apnskit", "check", folder])
        #expect(result.status == 1)
        #expect(status(result.out, "App.provisionprofile") == "FAIL", "\(result.out)")
        #expect(result.out.contains("2 files"))
    }

    @Test func unreadablePushCredentialIsExit3() async throws {
        let f = try await ProfileFixtures.shared.get()
        let missing = try await run(["apnskit", "check", f.path("production.mobileprovision"), "--push-credential", f.path("nope.cer")])
        #expect(missing.status == 3)
        #expect(missing.err.contains("--push-credential: \(f.path("nope.cer")) does not exist"), "\(missing.err)")
        let notOne = try await run(["apnskit", "check", f.path("production.mobileprovision"), "--push-credential", f.path("signer.pem")])
        #expect(notOne.status == 3)
        #expect(notOne.err.contains("not a push certificate or .p8 key"), "\(notOne.err)")
    }
}

/// The same cross-checks with profiles `mock issue --profile` makes (signed by the mock CA's
/// profile signer, so `ca-bundle.pem` verifies them).
@Suite struct MockProfileCheckTests {
    @Test(arguments: [
        (["--distribution", "development"], "dev.cer", nil),
        (["--distribution", "development"], "prod.cer", "serves only production"),
        (["--distribution", "appstore"], "prod.cer", nil),
        (["--distribution", "appstore"], "dev.cer", "serves only sandbox"),
        (["--distribution", "enterprise"], "universal.cer", nil),
        (["--distribution", "enterprise"], "other-team.cer", "is not the team Z9Y8X7W6V5"),
        (["--distribution", "adhoc", "--team-id", "Z9Y8X7W6V5"], "prod.cer", "the profile's team Z9Y8X7W6V5 is not the team A1B2C3D4E5"),
        (["--bundle-id", "com.example.*"], "dev.cer", nil),
        (["--bundle-id", "com.example.*"], "other-app.cer", "does not match the bundle id"),
        (["--aps-environment", "none"], "dev.cer", "no aps-environment entitlement"),
        (["--not-before", "2024-01-01", "--not-after", "2025-01-01"], "dev.cer", "profile expired on 2025-01-01"),
    ] as [([String], String, String?)])
    func mockProfileCrossCheck(options: [String], credential: String, failure: String?) async throws {
        let f = try await ProfileFixtures.shared.get()
        let profile = f.path("mock-check-\(UUID().uuidString).mobileprovision")
        let bundle = options.contains("--bundle-id") ? [] : ["--bundle-id", "com.example.app"]
        let issued = try await run(["apnskit", "mock", "issue", "--profile", "--ca", f.path("ca"), "-o", profile] + bundle + options)
        #expect(issued.status == 0, "\(issued.err)")
        let result = try await run(["apnskit", "check", "--ca-file", f.bundle, profile, "--push-credential", f.path(credential)])
        if let failure {
            #expect(result.status == 1, "\(result.out)")
            #expect(result.out.hasPrefix("FAIL "), "\(result.out)")
            #expect(result.out.contains(failure), "\(result.out)")
        } else {
            #expect(result.status == 0, "\(result.out)")
            #expect(result.out.hasPrefix("OK "), "\(result.out)")
        }
    }
}

/// Several `mock issue --profile` runs at once on a CA folder with no profile signer yet: the
/// first makes the signer under a folder lock and every run signs with that one (a race here
/// once failed a CI run: a run saw the first's key file but not yet its certificate).
@Suite struct MockProfileSignerRaceTests {
    @Test func concurrentIssuesShareOneSigner() async throws {
        let folder = NSTemporaryDirectory() + "apnskit-signer-race-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ca = folder + "/ca"
        #expect(try await run(["apnskit", "mock", "ca", "-o", ca]).status == 0)
        let runs = 6
        let results = try await withThrowingTaskGroup(of: (Int, Run).self) { group in
            for index in 0..<runs {
                group.addTask {
                    (index, try await run(["apnskit", "mock", "issue", "--profile", "--ca", ca, "--bundle-id", "com.example.app",
                                           "-o", folder + "/p\(index).mobileprovision"]))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        for index in 0..<runs { #expect(results[index]?.status == 0, "\(results[index]?.err ?? "")") }
        // Each profile's signer, as openssl reads it out of the CMS envelope, is the one saved.
        let saved = try await run(["openssl", "x509", "-in", ca + "/profile-signing.pem", "-noout", "-fingerprint", "-sha256"])
        #expect(saved.status == 0 && saved.out.contains("Fingerprint"), "\(saved.err)")
        for index in 0..<runs {
            let signer = folder + "/signer\(index).pem"
            let extracted = try await run(["openssl", "cms", "-verify", "-noverify", "-inform", "DER", "-in", folder + "/p\(index).mobileprovision",
                                           "-signer", signer, "-out", "/dev/null"])
            #expect(extracted.status == 0, "\(extracted.err)")
            let fingerprint = try await run(["openssl", "x509", "-in", signer, "-noout", "-fingerprint", "-sha256"])
            #expect(fingerprint.out == saved.out, "profile \(index) was signed by another signer")
        }
    }
}
