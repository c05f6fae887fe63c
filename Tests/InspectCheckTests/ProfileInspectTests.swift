// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Foundation
import Testing

/// `apnskit inspect` on provisioning profiles: those made independently of apnskit (plistlib +
/// `openssl cms`) are read right, those `mock issue --profile` makes read right in independent
/// tools (`openssl cms -verify`, plistlib), and damaged ones are exit 3 with one sentence.
@Suite struct ProfileInspectTests {
    /// The finding codes of one file report.
    func codes(_ report: [String: Any]) -> [String] {
        ((report["findings"] as? [[String: Any]]) ?? []).compactMap { $0["code"] as? String }
    }

    func inspectJSON(_ arguments: [String]) async throws -> (Run, [String: Any]) {
        let result = try await run(["apnskit", "inspect", "--format", "json"] + arguments)
        return (result, try result.json().firstFile)
    }

    @Test(arguments: [
        ("development.mobileprovision", "development", "development", "sandbox", 2, false, false, "com.example.app"),
        ("production.mobileprovision", "appStore", "production", "production", 0, false, false, "com.example.app"),
        ("enterprise.mobileprovision", "enterprise", "production", "production", 0, true, false, "com.example.app"),
        ("wildcard.mobileprovision", "development", "development", "sandbox", 1, false, true, "com.example.*"),
        ("mac.provisionprofile", "adHoc", "production", "production", 1, false, false, "com.example.app"),
    ])
    func independentProfilesAreReadRight(file: String, distribution: String, aps: String, push: String, devices: Int,
                                         allDevices: Bool, wildcard: Bool, bundle: String) async throws {
        let f = try await ProfileFixtures.shared.get()
        let (result, report) = try await inspectJSON([f.path(file)])
        #expect(result.status == 0, "\(result.out) \(result.err)")
        #expect(report["kind"] as? String == "provisioningProfile")
        let profile = report["profile"] as? [String: Any] ?? [:]
        #expect(profile["distribution"] as? String == distribution)
        #expect(profile["apsEnvironment"] as? String == aps)
        #expect(profile["pushEnvironment"] as? String == push)
        #expect(profile["deviceCount"] as? Int == devices)
        #expect(profile["provisionsAllDevices"] as? Bool == allDevices)
        #expect(profile["isWildcard"] as? Bool == wildcard)
        #expect(profile["bundleID"] as? String == bundle)
        #expect(profile["appIDPrefix"] as? String == ProfileFixtures.team)
        #expect(profile["applicationIdentifier"] as? String == "\(ProfileFixtures.team).\(bundle)")
        #expect(profile["teamID"] as? String == ProfileFixtures.team)
        #expect(profile["teamName"] as? String == "Independent Team")
        #expect(profile["platforms"] as? [String] == [file.hasSuffix(".provisionprofile") ? "OSX" : "iOS"])
        #expect((profile["uuid"] as? String)?.count == 36)
        let signature = profile["signature"] as? [String: Any] ?? [:]
        #expect(signature["valid"] as? Bool == true)
        #expect(signature["signerCommonName"] as? String == "Independent Profile Signing")
        #expect(signature["chainVerified"] == nil)
        #expect(codes(report).contains("signatureNotVerified"))
    }

    @Test func textNamesEveryFactAndTheEmbeddedCertificateAsOpenSSLSees() async throws {
        let f = try await ProfileFixtures.shared.get()
        let openssl = try await run(["openssl", "x509", "-inform", "DER", "-in", f.path("developer.der"), "-noout", "-fingerprint", "-sha1"])
        let sha1 = openssl.out.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?"
        let result = try await run(["apnskit", "inspect", f.path("enterprise.mobileprovision")])
        #expect(result.status == 0, "\(result.out)")
        for expected in ["Name:         Independent 33333333-3333-3333-3333-333333333333", "UUID:         33333333-3333-3333-3333-333333333333",
                         "App id:       A1B2C3D4E5.com.example.app", "Team:         A1B2C3D4E5 Independent Team",
                         "Push:         aps-environment production (device tokens for production)",
                         "Devices:      all devices (enterprise)", "Apple Development: Independent (A1B2C3D4E5)", "SHA-1 \(sha1)",
                         "Signed by:    Independent Profile Signing", "signature not verified"] {
            #expect(result.out.contains(expected), "missing \(expected) in \(result.out)")
        }
        let (_, report) = try await inspectJSON([f.path("enterprise.mobileprovision")])
        let certificates = (report["profile"] as? [String: Any])?["developerCertificates"] as? [[String: Any]] ?? []
        #expect(certificates.map { $0["sha1Fingerprint"] as? String } == [sha1])
    }

    @Test func caFileVerifiesTheSigner() async throws {
        let f = try await ProfileFixtures.shared.get()
        let (trusted, good) = try await inspectJSON(["--ca-file", f.path("signer.pem"), f.path("production.mobileprovision")])
        #expect(trusted.status == 0)
        #expect((good["profile"] as? [String: Any])?["signature"].flatMap { ($0 as? [String: Any])?["chainVerified"] as? Bool } == true)
        let (untrusted, bad) = try await inspectJSON(["--ca-file", f.bundle, f.path("production.mobileprovision")])
        #expect(untrusted.status == 1)
        #expect(codes(bad).contains("signerNotTrusted"))
    }

    @Test func expiredProfileIsAnError() async throws {
        let f = try await ProfileFixtures.shared.get()
        let result = try await run(["apnskit", "inspect", f.path("expired.mobileprovision")])
        #expect(result.status == 1)
        #expect(result.out.contains("the profile expired on"), "\(result.out)")
        let (_, report) = try await inspectJSON([f.path("expired.mobileprovision")])
        #expect((report["profile"] as? [String: Any])?["daysLeft"] as? Int ?? 0 < 0)
    }

    @Test func profileWithoutPushSaysSo() async throws {
        let f = try await ProfileFixtures.shared.get()
        let (result, report) = try await inspectJSON([f.path("no-push.mobileprovision")])
        #expect(result.status == 0)
        #expect(codes(report).contains("noApsEnvironment"))
        #expect((report["profile"] as? [String: Any])?["apsEnvironment"] == nil)
    }

    /// The mock's profiles, read by openssl (signature and chain to the mock root) and plistlib.
    @Test(arguments: [
        (["--distribution", "development"], "development", true, 3, false, "iOS"),
        (["--distribution", "appstore"], "production", false, 0, false, "iOS"),
        (["--distribution", "enterprise"], "production", false, 0, true, "iOS"),
        (["--distribution", "adhoc", "--platform", "macos", "--devices", "5"], "production", false, 5, false, "OSX"),
        (["--distribution", "development", "--bundle-id", "com.example.*"], "development", true, 3, false, "iOS"),
    ])
    func mockProfilesReadInIndependentTools(options: [String], aps: String, getTaskAllow: Bool, devices: Int, allDevices: Bool,
                                            platform: String) async throws {
        let f = try await ProfileFixtures.shared.get()
        let out = f.path("mock-\(UUID().uuidString).mobileprovision")
        let bundle = options.contains("--bundle-id") ? [] : ["--bundle-id", "com.example.app"]
        let issued = try await run(["apnskit", "mock", "issue", "--profile", "--ca", f.path("ca"), "-o", out] + bundle + options)
        #expect(issued.status == 0, "\(issued.err)")
        let plist = out + ".plist"
        let verified = try await run(["openssl", "cms", "-verify", "-inform", "DER", "-in", out, "-CAfile", f.path("ca/root.pem"), "-out", plist])
        #expect(verified.status == 0, "openssl cms -verify: \(verified.err)")
        let script = """
        import json, plistlib, sys
        p = plistlib.load(open(sys.argv[1], "rb"))
        e = p["Entitlements"]
        print(json.dumps({"aps": e.get("aps-environment", e.get("com.apple.developer.aps-environment")), "gta": e["get-task-allow"],
                          "devices": len(p.get("ProvisionedDevices", [])), "all": p.get("ProvisionsAllDevices", False),
                          "platform": p["Platform"][0], "team": p["TeamIdentifier"][0], "certs": len(p["DeveloperCertificates"]),
                          "expires": p["ExpirationDate"] > p["CreationDate"], "uuid": p["UUID"]}))
        """
        let python = try await run(["python3", "-c", script, plist])
        #expect(python.status == 0, "\(python.err)")
        let facts = try JSONSerialization.jsonObject(with: Data(python.out.utf8)) as? [String: Any] ?? [:]
        #expect(facts["aps"] as? String == aps)
        #expect(facts["gta"] as? Bool == getTaskAllow)
        #expect(facts["devices"] as? Int == devices)
        #expect(facts["all"] as? Bool == allDevices)
        #expect(facts["platform"] as? String == platform)
        #expect(facts["team"] as? String == ProfileFixtures.team)
        #expect(facts["certs"] as? Int == 1)
        #expect(facts["expires"] as? Bool == true)
        let (inspected, report) = try await inspectJSON(["--ca-file", f.bundle, out])
        #expect(inspected.status == 0, "\(inspected.out)")
        let profile = report["profile"] as? [String: Any] ?? [:]
        #expect(profile["uuid"] as? String == facts["uuid"] as? String)
        #expect(profile["apsEnvironment"] as? String == aps)
        #expect((profile["signature"] as? [String: Any])?["signerCommonName"] as? String == "Apple iPhone OS Provisioning Profile Signing")
        #expect((profile["signature"] as? [String: Any])?["chainVerified"] as? Bool == true)
    }
}
