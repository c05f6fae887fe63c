// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import Foundation
import TestSupport

/// Provisioning profiles for the profile tests, made two ways: by `apnskit mock issue
/// --profile`, and independently of apnskit (Python's plistlib for the property list,
/// `openssl cms -sign -nodetach -outform DER` for the envelope, `openssl req -x509` for the
/// signer and the embedded developer certificate). Push credentials to cross-check them
/// against come from the mock CA and `openssl genpkey`.
struct ProfileFixtures: Sendable {
    let folder: String
    func path(_ name: String) -> String { folder + "/" + name }
    var bundle: String { folder + "/ca/ca-bundle.pem" }

    static let shared = SharedFixture { try await ProfileFixtures.make() }
    static let team = "A1B2C3D4E5"
    static let otherTeam = "Z9Y8X7W6V5"

    /// Writes a profile property list from a JSON spec with plistlib (never Foundation).
    static let plistScript = """
    import json, plistlib, sys, datetime
    spec = json.loads(sys.argv[1])
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0, tzinfo=None)
    team = spec["team"]
    ent = {"application-identifier" if not spec.get("macos") else "com.apple.application-identifier": team + "." + spec["bundle"],
           "com.apple.developer.team-identifier": team, "keychain-access-groups": [team + ".*"],
           "get-task-allow": spec.get("getTaskAllow", False)}
    if spec.get("aps"):
        ent["com.apple.developer.aps-environment" if spec.get("macos") else "aps-environment"] = spec["aps"]
    p = {"AppIDName": "Independent " + spec["bundle"], "ApplicationIdentifierPrefix": [team],
         "CreationDate": now + datetime.timedelta(days=spec.get("createdDays", -1)),
         "ExpirationDate": now + datetime.timedelta(days=spec.get("expiresDays", 300)),
         "Platform": ["OSX"] if spec.get("macos") else ["iOS"], "IsXcodeManaged": False,
         "DeveloperCertificates": [open(c, "rb").read() for c in spec.get("certs", [])],
         "Entitlements": ent, "Name": spec["name"], "TeamIdentifier": [team], "TeamName": "Independent Team",
         "TimeToLive": 300, "UUID": spec["uuid"], "Version": 1}
    if spec.get("allDevices"):
        p["ProvisionsAllDevices"] = True
    elif spec.get("devices", 0) > 0:
        p["ProvisionedDevices"] = ["%040x" % (i + 1) for i in range(spec["devices"])]
    with open(sys.argv[2], "wb") as f:
        plistlib.dump(p, f, fmt=plistlib.FMT_XML)
    """

    /// `spec` as the script reads it; the plist is then signed by the independent signer.
    func makeIndependent(_ name: String, _ spec: [String: Any]) async throws {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
        let plist = path(name + ".plist")
        try Self.require(await run(["python3", "-c", Self.plistScript, json, plist]), "python3 plistlib")
        try await sign(plist, to: path(name))
    }

    func sign(_ plist: String, to out: String) async throws {
        try Self.require(await run(["openssl", "cms", "-sign", "-nodetach", "-binary", "-outform", "DER", "-in", plist,
                              "-signer", path("signer.pem"), "-inkey", path("signer-key.pem"), "-out", out]), "openssl cms -sign")
    }

    static func require(_ result: Run, _ what: String) throws {
        guard result.status == 0 else {
            throw APNsCredentialError(.internalFailure, "\(what) failed (exit \(result.status)): \(result.err) \(result.out); scripts/setup.sh installs openssl and python3.")
        }
    }

    static func make() async throws -> ProfileFixtures {
        let folder = NSTemporaryDirectory() + "apnskit-profile-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let f = ProfileFixtures(folder: folder)
        RemovedAtExit.add(folder)
        // Push credentials from the mock CA, and a .p8 from openssl.
        let ca = try MockCA.create()
        try ca.write(to: f.path("ca"), force: false)
        let key = try PrivateKey.generate(.ec256)
        func issue(_ name: String, _ request: PortalRequest) throws { try write(ca.issue(forKey: key, request).der, f.path(name)) }
        try issue("dev.cer", PortalRequest(bundleID: "com.example.app", type: .development, teamID: team))
        try issue("prod.cer", PortalRequest(bundleID: "com.example.app", type: .production, teamID: team))
        try issue("universal.cer", PortalRequest(bundleID: "com.example.app", type: .universal, teamID: team))
        try issue("other-app.cer", PortalRequest(bundleID: "com.other.app", type: .universal, teamID: team))
        try issue("other-team.cer", PortalRequest(bundleID: "com.example.app", type: .universal, teamID: otherTeam))
        try require(await run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", f.path("AuthKey_ABC123DEFG.p8")]),
                    "openssl genpkey")

        // The independent signer and developer certificate.
        try require(await run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj", "/CN=Independent Profile Signing/O=Test",
                         "-keyout", f.path("signer-key.pem"), "-out", f.path("signer.pem")]), "openssl req -x509")
        try require(await run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "30",
                         "-subj", "/UID=\(team)DEV/CN=Apple Development: Independent (\(team))/OU=\(team)/O=Independent/C=US",
                         "-keyout", f.path("developer-key.pem"), "-outform", "DER", "-out", f.path("developer.der")]), "openssl req -x509")
        // Trusts both the mock CA (push certificates) and the independent signer (profiles).
        let trust = try Data(contentsOf: URL(fileURLWithPath: f.bundle)) + Data(contentsOf: URL(fileURLWithPath: f.path("signer.pem")))
        try trust.write(to: URL(fileURLWithPath: f.path("trust.pem")))
        let certs = [f.path("developer.der")]
        func spec(_ bundle: String, _ aps: String?, uuid: String, extra: [String: Any] = [:]) -> [String: Any] {
            var result: [String: Any] = ["team": team, "bundle": bundle, "name": "Independent \(uuid)", "uuid": uuid, "certs": certs]
            if let aps { result["aps"] = aps }
            return result.merging(extra) { $1 }
        }
        try await f.makeIndependent("development.mobileprovision", spec("com.example.app", "development", uuid: "11111111-1111-1111-1111-111111111111",
                                                                   extra: ["getTaskAllow": true, "devices": 2]))
        try await f.makeIndependent("production.mobileprovision", spec("com.example.app", "production", uuid: "22222222-2222-2222-2222-222222222222"))
        try await f.makeIndependent("enterprise.mobileprovision", spec("com.example.app", "production", uuid: "33333333-3333-3333-3333-333333333333",
                                                                  extra: ["allDevices": true]))
        try await f.makeIndependent("wildcard.mobileprovision", spec("com.example.*", "development", uuid: "44444444-4444-4444-4444-444444444444",
                                                                extra: ["getTaskAllow": true, "devices": 1]))
        try await f.makeIndependent("expired.mobileprovision", spec("com.example.app", "production", uuid: "55555555-5555-5555-5555-555555555555",
                                                               extra: ["createdDays": -400, "expiresDays": -3]))
        try await f.makeIndependent("expiring.mobileprovision", spec("com.example.app", "production", uuid: "66666666-6666-6666-6666-666666666666",
                                                                extra: ["expiresDays": 10]))
        try await f.makeIndependent("no-push.mobileprovision", spec("com.example.app", nil, uuid: "77777777-7777-7777-7777-777777777777"))
        try await f.makeIndependent("mac.provisionprofile", spec("com.example.app", "production", uuid: "88888888-8888-8888-8888-888888888888",
                                                            extra: ["macos": true, "devices": 1]))
        try await f.makeIndependent("wildcard-no-push.mobileprovision", spec("*", nil, uuid: "99999999-9999-9999-9999-999999999999"))
        try await f.makeIndependent("bogus-aps.mobileprovision", spec("com.example.app", "staging", uuid: "AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA"))
        let day: TimeInterval = 86_400
        try issue("old-developer.der", PortalRequest(bundleID: "com.example.app", validity: .window(notBefore: Date() - 400 * day, notAfter: Date() - 2 * day)))
        try await f.makeIndependent("old-certificates.mobileprovision", spec("com.example.app", "production", uuid: "BBBBBBBB-BBBB-BBBB-BBBB-BBBBBBBBBBBB",
                                                                        extra: ["certs": [f.path("old-developer.der")]]))
        return f
    }
}
