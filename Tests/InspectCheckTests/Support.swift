// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import Foundation
import TestSupport

struct Run {
    let status: Int32
    let out: String
    let err: String

    /// stdout parsed as a JSON object.
    func json() throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any] ?? [:]
    }
}

/// Runs a program with arguments; `apnskit` as the first argument means the built binary.
@discardableResult
func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Run {
    let executable = arguments[0] == "apnskit" ? Binaries.apnskit : arguments[0]
    let result = try await ProcessRunner.run(executable, Array(arguments.dropFirst()), environment: environment)
    return Run(status: result.status, out: result.stdout, err: result.stderr)
}

func write(_ bytes: [UInt8], _ path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// A folder of fixtures made once for the whole target by the mock CA (and the openssl CLI
/// for the .p12 and .p8): every kind of certificate `inspect` and `check` must tell apart.
struct Fixtures: Sendable {
    let folder: String
    var ca: String { folder + "/ca" }
    var bundle: String { folder + "/ca/ca-bundle.pem" }
    func path(_ name: String) -> String { folder + "/" + name }

    static let shared = SharedFixture { try await Fixtures.make() }

    static func make() async throws -> Fixtures {
        let folder = NSTemporaryDirectory() + "apnskit-inspect-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder + "/good", withIntermediateDirectories: true)
        let ca = try MockCA.create()
        try ca.write(to: folder + "/ca", force: false)
        let other = try MockCA.create()
        let key = try PrivateKey.generate(.rsa2048)
        let now = Date()
        let day: TimeInterval = 86_400
        func issue(_ name: String, _ request: PortalRequest, by authority: MockCA = ca) throws {
            try write(authority.issue(forKey: key, request).der, folder + "/" + name)
        }
        try write(key.pkcs8PEM(), folder + "/key.pem")
        try write(PrivateKey.generate(.rsa2048).pkcs8PEM(), folder + "/other-key.pem")
        try issue("development.cer", PortalRequest(bundleID: "com.example.app", type: .development))
        try issue("production.cer", PortalRequest(bundleID: "com.example.app", type: .production))
        try issue("voip.cer", PortalRequest(bundleID: "com.example.app", type: .voip))
        try issue("passtype.cer", PortalRequest(bundleID: "pass.com.example", type: .passTypeID))
        try issue("expired.cer", PortalRequest(bundleID: "com.example.old", type: .universal,
                                               validity: .window(notBefore: now - 400 * day, notAfter: now - 5 * day)))
        try issue("not-yet-valid.cer", PortalRequest(bundleID: "com.example.future", type: .universal,
                                                     validity: .window(notBefore: now + 10 * day, notAfter: now + 400 * day)))
        try issue("expiring-10-days.cer", PortalRequest(bundleID: "com.example.soon", type: .universal,
                                                        validity: .window(notBefore: now - 380 * day, notAfter: now + 10 * day + 3600)))
        try issue("wrong-issuer.cer", PortalRequest(bundleID: "com.example.app", type: .universal), by: other)
        try issue("malformed-topics.cer", PortalRequest(bundleID: "com.example.app", type: .universal,
                                                        topicsDEROverride: [0x30, 0x06, 0x0C, 0x03, 0x61, 0x62, 0x63, 0x0C]))
        try issue("legacy-development.cer", PortalRequest(bundleID: "com.example.legacy", type: .development,
                                                          topicsDEROverride: nil, environmentsOverride: []))
        let development = try ca.issue(forKey: key, PortalRequest(bundleID: "com.example.app", type: .development)).der
        try write(Array(development.prefix(development.count / 2)), folder + "/truncated.cer")
        try write(PrivateKey.generate(.rsa2048).pkcs8PEM(), folder + "/AuthKey_RSAKEY0001.p8")
        let universal = try ca.issue(forKey: key, PortalRequest(bundleID: "com.example.app", type: .universal))
        try write(universal.pem() + key.pkcs8PEM(), folder + "/universal.pem")
        try write(universal.pem(), folder + "/universal-cert.pem")
        try write(universal.pem() + ca.intermediate.pem() + key.pkcs8PEM(), folder + "/good/apns-universal.pem")
        try write(ca.issue(forKey: key, PortalRequest(bundleID: "com.example.app", type: .production)).der, folder + "/good/production.cer")
        try write(Array("not a certificate at all\n".utf8), folder + "/garbage.pem")

        let p12 = try await run(["openssl", "pkcs12", "-export", "-in", folder + "/universal-cert.pem", "-inkey", folder + "/key.pem",
                           "-passout", "pass:secret", "-out", folder + "/universal.p12"])
        guard p12.status == 0 else { throw APNsCredentialError(.internalFailure, "openssl pkcs12 failed: \(p12.err)") }
        let p8 = try await run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                          "-out", folder + "/AuthKey_ABC123DEFG.p8"])
        guard p8.status == 0 else { throw APNsCredentialError(.internalFailure, "openssl genpkey failed: \(p8.err)") }
        let csr = try await run(["openssl", "req", "-new", "-key", folder + "/key.pem", "-subj", "/emailAddress=dev@example.com/CN=Dev/C=US",
                           "-out", folder + "/request.csr"])
        guard csr.status == 0 else { throw APNsCredentialError(.internalFailure, "openssl req failed: \(csr.err)") }
        // Removed when the test process exits (the fixtures live for the whole run).
        RemovedAtExit.add(folder)
        return Fixtures(folder: folder)
    }
}

extension [String: Any] {
    /// `files[0]` of an inspect report.
    var firstFile: [String: Any] { (self["files"] as? [[String: Any]])?.first ?? [:] }
    var leafCertificate: [String: Any] {
        let file = firstFile
        let index = file["leafIndex"] as? Int ?? 0
        return (file["certificates"] as? [[String: Any]])?[index] ?? [:]
    }
    var findingCodes: [String] {
        let file = firstFile
        let own = (file["findings"] as? [[String: Any]]) ?? []
        let certs = ((file["certificates"] as? [[String: Any]]) ?? []).flatMap { ($0["findings"] as? [[String: Any]]) ?? [] }
        return (own + certs).compactMap { $0["code"] as? String }
    }
}
