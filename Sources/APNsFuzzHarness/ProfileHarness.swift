// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import Foundation

/// The provisioning-profile parser: OpenSSL's CMS decoder for the envelope, then
/// `PropertyListBounds` and Foundation's property-list parser for the content. Inputs start
/// with a mode byte: even means "a whole profile file", odd "the property list alone", so
/// mutations reach the property-list parser without first breaking the envelope's DER.
enum ProfileHarness {
    /// The mock CA's profile signer and the root it chains to, made once per process.
    struct Fixture: Sendable {
        let signer: MockProfileSigner
        let trust: TrustStore
    }

    static let shared = Result<Fixture, any Error> {
        let ca = try CredentialFixtures.shared.get().ca
        return Fixture(signer: try ca.makeProfileSigner(), trust: try TrustStore(certificates: [ca.root]))
    }

    static let now = Date()

    static func provisioningProfile(_ input: [UInt8]) throws {
        guard let mode = input.first else { return }
        let body = Array(input.dropFirst())
        if mode & 1 == 1 {
            guard let profile = try Check.credential("ProvisioningProfile.parse", { try ProvisioningProfile.parse(plist: body, label: "fuzz") }) else { return }
            try Check.require(profile.deviceCount >= 0, "a negative device count")
            return
        }
        let trust = try shared.get().trust
        guard let info = try Check.credential("ProvisioningProfileFile.read", { try ProvisioningProfileFile.read(body, label: "fuzz", trust: trust, now: now) }) else { return }
        try Check.require(info.isWildcard == info.bundleID.hasSuffix("*"), "isWildcard disagrees with the bundle id \(info.bundleID)")
        try Check.require(info.applicationIdentifier.hasSuffix(info.bundleID), "the bundle id is not the end of the application identifier")
        try Check.require(info.signature.valid == (info.signature.error == nil), "signature validity and its error disagree")
        try Check.require((info.pushEnvironment == nil) || info.apsEnvironment != nil, "a push environment without aps-environment")
        _ = info.findings(now: now)
        do {
            _ = try JSONEncoder().encode(info)
        } catch {
            throw HarnessViolation("a profile that read does not encode as JSON: \(error)")
        }
    }

    /// Mock profiles of every distribution and platform, wildcard and without push; each as a
    /// whole file and as its property list.
    static func seeds() throws -> [[UInt8]] {
        let fixture = try shared.get()
        let ca = try CredentialFixtures.shared.get().ca
        var requests = [
            ProfileRequest(bundleID: "com.example.fuzz", distribution: .development),
            ProfileRequest(bundleID: "com.example.fuzz", distribution: .appStore),
            ProfileRequest(bundleID: "com.example.fuzz", distribution: .enterprise),
            ProfileRequest(bundleID: "com.example.*", distribution: .adHoc, platform: .macOS),
        ]
        var noPush = ProfileRequest(bundleID: "*", distribution: .development)
        noPush.apsEnvironment = nil
        requests.append(noPush)
        var seeds: [[UInt8]] = []
        for request in requests {
            let der = try ca.issueProfile(request, signer: fixture.signer, now: now)
            seeds.append([0] + der)
            if let plist = try CMSSignedData(der: der, label: "seed").content { seeds.append([1] + plist) }
        }
        return seeds
    }
}
