// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import APNsMock
import ArgumentParser
import Foundation

/// `apnskit mock issue --profile --ca DIR --bundle-id B [...] -o App.mobileprovision`: an
/// Apple-like provisioning profile signed by the mock CA's "Apple iPhone OS Provisioning
/// Profile Signing" certificate (made in the CA folder on first use).
struct MockProfileOptions: ParsableArguments {
    @Flag(help: "Make a provisioning profile (.mobileprovision) instead of a certificate.")
    var profile = false

    @Option(help: "With --profile: development, adhoc, appstore or enterprise.")
    var distribution: String = "development"

    @Option(name: .customLong("aps-environment"), help: "With --profile: development, production or none (default: development for development profiles, production otherwise).")
    var apsEnvironment: String?

    @Option(help: "With --profile: number of provisioned devices (default 3 for development and adhoc, 0 otherwise).")
    var devices: Int?

    @Option(help: "With --profile: ios or macos.")
    var platform: String = "ios"

    @Option(help: "With --profile: the profile's name.")
    var name: String?

    @Option(name: .customLong("team-name"), help: "With --profile: the team's name.")
    var teamName: String = "apnskit Mock Developer"

    @Option(name: .customLong("developer-certificate"), help: "With --profile: a certificate to embed in DeveloperCertificates (repeatable; default: one made by the mock CA).")
    var developerCertificates: [String] = []

    static let distributions: [String: ProvisioningProfileInfo.Distribution] = [
        "development": .development, "adhoc": .adHoc, "appstore": .appStore, "enterprise": .enterprise,
    ]

    func validate(csr: String?, authKey: Bool, bundleID: String?, days: Int?, notBefore: String?, notAfter: String?) throws {
        if csr != nil || authKey { throw ValidationError("--profile makes a provisioning profile; it takes no CSR and no --auth-key.") }
        guard bundleID != nil else { throw ValidationError("--profile needs --bundle-id (com.example.app, or com.example.* for a wildcard app id).") }
        guard Self.distributions[distribution.lowercased()] != nil else {
            throw ValidationError("--distribution must be development, adhoc, appstore or enterprise.")
        }
        if let apsEnvironment, !["development", "production", "none"].contains(apsEnvironment) {
            throw ValidationError("--aps-environment must be development, production or none.")
        }
        guard ["ios", "macos"].contains(platform.lowercased()) else { throw ValidationError("--platform must be ios or macos.") }
        if let devices, devices < 0 || devices > 10_000 { throw ValidationError("--devices must be between 0 and 10000.") }
        try ValidityArguments.validate(days: days, notBefore: notBefore, notAfter: notAfter)
    }

    func issue(caFolder: String, bundleID: String, teamID: String, days: Int?, notBefore: String?, notAfter: String?,
               out: String, force: Bool) throws {
        try SecureFileWriter.preflight(out, force: force)
        var request = ProfileRequest(bundleID: bundleID, distribution: Self.distributions[distribution.lowercased()]!, teamID: teamID,
                                     teamName: teamName, name: name, platform: platform.lowercased() == "macos" ? .macOS : .iOS)
        request.validity = try ValidityArguments.validity(days: days, notBefore: notBefore, notAfter: notAfter, fallback: request.validity)
        if let apsEnvironment { request.apsEnvironment = apsEnvironment == "none" ? nil : apsEnvironment }
        if let devices { request.deviceCount = devices }
        request.developerCertificates = try developerCertificates.map { try IdentityLoader.certificate($0).0 }
        let authority = try MockCA.load(from: caFolder)
        let signer = try MockCA.profileSigner(in: caFolder, ca: authority)
        let profile = try authority.issueProfile(request, signer: signer)
        try SecureFileWriter.write(profile, to: out, sensitivity: .public, force: force)
        if out != SecureFileWriter.standardOutputPath {
            let push = request.apsEnvironment.map { "aps-environment \($0)" } ?? "no aps-environment"
            Output.line("Wrote \(out): \(request.distribution.rawValue) profile for \(teamID).\(bundleID), \(push), signed by \(MockProfileSigner.certificateFile) in \(caFolder)")
        }
    }
}
