// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
internal import COpenSSL
import Foundation

/// What the portal (or Xcode) is asked for when it makes a provisioning profile.
package struct ProfileRequest: Sendable {
    package enum Platform: String, Sendable {
        case iOS, macOS

        /// The `Platform` array value Apple writes.
        var plistName: String { self == .iOS ? "iOS" : "OSX" }
    }

    package var name: String
    /// `com.example.app`, `com.example.*` or `*`.
    package var bundleID: String
    package var teamID: String
    package var teamName: String
    package var distribution: ProvisioningProfileInfo.Distribution
    /// `development` / `production`; nil leaves the entitlement out (push not enabled).
    package var apsEnvironment: String?
    package var deviceCount: Int
    package var platform: Platform
    package var validity: PortalRequest.Validity
    /// Embedded as `DeveloperCertificates`; empty: one made by the mock CA.
    package var developerCertificates: [Certificate]

    /// The profile Apple makes for `distribution`: development profiles carry
    /// `aps-environment development`, the others `production`; development and ad hoc list
    /// devices, enterprise provisions all, App Store none. Valid for a year.
    package init(bundleID: String, distribution: ProvisioningProfileInfo.Distribution = .development, teamID: String = "A1B2C3D4E5",
                teamName: String = "apnskit Mock Developer", name: String? = nil, platform: Platform = .iOS,
                validity: PortalRequest.Validity = .days(365), developerCertificates: [Certificate] = []) {
        self.name = name ?? "\(bundleID) \(distribution.rawValue)"
        self.bundleID = bundleID
        self.teamID = teamID
        self.teamName = teamName
        self.distribution = distribution
        apsEnvironment = distribution == .development ? "development" : "production"
        deviceCount = distribution == .development || distribution == .adHoc ? 3 : 0
        self.platform = platform
        self.validity = validity
        self.developerCertificates = developerCertificates
    }

    /// The property list, with the keys Apple's profiles carry (apns-protocol.md §9).
    func propertyList(developerCertificates: [Certificate], now: Date) throws -> [UInt8] {
        let (created, expires) = PortalRequest(bundleID: bundleID, validity: validity).window(now: now)
        let applicationIdentifier = "\(teamID).\(bundleID)"
        var entitlements: [String: Any] = [
            "keychain-access-groups": ["\(teamID).*"],
            "get-task-allow": distribution == .development,
            "com.apple.developer.team-identifier": teamID,
        ]
        entitlements[platform == .iOS ? "application-identifier" : "com.apple.application-identifier"] = applicationIdentifier
        if let apsEnvironment {
            entitlements[platform == .iOS ? "aps-environment" : "com.apple.developer.aps-environment"] = apsEnvironment
        }
        var plist: [String: Any] = [
            "AppIDName": "apnskit mock \(bundleID)",
            "ApplicationIdentifierPrefix": [teamID],
            "CreationDate": created,
            "Platform": [platform.plistName],
            "IsXcodeManaged": false,
            "DeveloperCertificates": developerCertificates.map { Data($0.der) },
            "Entitlements": entitlements,
            "ExpirationDate": expires,
            "Name": name,
            "TeamIdentifier": [teamID],
            "TeamName": teamName,
            "TimeToLive": max(0, Int(expires.timeIntervalSince(created) / 86_400)),
            "UUID": UUID().uuidString,
            "Version": 1,
        ]
        if distribution == .enterprise {
            plist["ProvisionsAllDevices"] = true
        } else if deviceCount > 0 {
            plist["ProvisionedDevices"] = (0..<deviceCount).map { String(format: "00008030-%016X", $0 + 1) }
        }
        return Array(try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0))
    }
}

/// The mock "Apple iPhone OS Provisioning Profile Signing" identity: a certificate issued by
/// the mock root (so `ca-bundle.pem` verifies it) and its key.
package struct MockProfileSigner: Sendable {
    package let certificate: Certificate
    package let key: PrivateKey

    package static let subject: [DistinguishedName.Attribute] = [
        .init(key: "CN", value: "Apple iPhone OS Provisioning Profile Signing"),
        .init(key: "O", value: "apnskit Mock (not Apple Inc.)"),
        .init(key: "C", value: "US"),
    ]

    /// Files the signer is kept in, inside the mock CA folder (made on first use).
    package static let certificateFile = "profile-signing.pem"
    package static let keyFile = "profile-signing-key.pem"

    package init(certificate: Certificate, key: PrivateKey) {
        self.certificate = certificate
        self.key = key
    }
}

extension MockCA {
    /// A new profile-signing identity issued by the root.
    package func makeProfileSigner(now: Date = Date()) throws -> MockProfileSigner {
        let key = try PrivateKey.generate(.rsa2048)
        let certificate = try CertificateBuilder().build { builder in
            try builder.setSubject(MockProfileSigner.subject)
            try builder.setIssuer(root)
            try builder.setValidity(notBefore: now.addingTimeInterval(-86_400), notAfter: now.addingTimeInterval(5 * 365 * 86_400))
            try builder.setPublicKey(key)
            try builder.addExtension(NID_basic_constraints, "critical,CA:FALSE")
            try builder.addExtension(NID_key_usage, "critical,digitalSignature")
            try builder.addExtension(NID_subject_key_identifier, "hash")
            try builder.addExtension(NID_authority_key_identifier, "keyid:always", issuer: root)
            return try builder.sign(with: rootKey)
        }
        return MockProfileSigner(certificate: certificate, key: key)
    }

    /// The folder's signer, made and saved there on first use (CA folders from before profiles
    /// existed gain one). The check and the two writes happen under a lock on the folder, so
    /// concurrent runs all use the one signer the first of them saved; a key left without its
    /// certificate (a run killed between the two writes) is replaced.
    package static func profileSigner(in folder: String, ca: MockCA) throws -> MockProfileSigner {
        let certificatePath = (folder as NSString).appendingPathComponent(MockProfileSigner.certificateFile)
        let keyPath = (folder as NSString).appendingPathComponent(MockProfileSigner.keyFile)
        return try FolderLock.withExclusiveLock(on: folder) {
            if FileManager.default.fileExists(atPath: certificatePath) {
                return MockProfileSigner(certificate: try IdentityLoader.certificate(certificatePath).0,
                                         key: try IdentityLoader.privateKey(keyPath, passphrases: .none))
            }
            let signer = try ca.makeProfileSigner()
            try SecureFileWriter.write(try signer.key.pkcs8PEM(), to: keyPath, sensitivity: .secret, force: true)
            try SecureFileWriter.write(try signer.certificate.pem(), to: certificatePath, sensitivity: .public, force: false)
            return signer
        }
    }

    /// A developer certificate like "Apple Development: Name (TEAMID)", for `DeveloperCertificates`.
    package func issueDeveloperCertificate(teamID: String, name: String = "apnskit Mock Developer", now: Date = Date()) throws -> Certificate {
        let key = try PrivateKey.generate(.ec256)
        return try CertificateBuilder().build { builder in
            try builder.setSubject([
                .init(key: "UID", value: teamID + "DEV"),
                .init(key: "CN", value: "Apple Development: \(name) (\(teamID))"),
                .init(key: "OU", value: teamID),
                .init(key: "O", value: name),
                .init(key: "C", value: "US"),
            ])
            try builder.setIssuer(intermediate)
            try builder.setValidity(notBefore: now.addingTimeInterval(-86_400), notAfter: now.addingTimeInterval(365 * 86_400))
            try builder.setPublicKey(key)
            try builder.addExtension(NID_basic_constraints, "critical,CA:FALSE")
            try builder.addExtension(NID_key_usage, "critical,digitalSignature")
            try builder.addExtension(NID_ext_key_usage, "codeSigning")
            return try builder.sign(with: intermediateKey)
        }
    }

    /// A provisioning profile as Apple makes one: the property list for `request`, in a CMS
    /// SignedData (DER) by `signer`, carrying the signer's certificate.
    package func issueProfile(_ request: ProfileRequest, signer: MockProfileSigner, now: Date = Date()) throws -> [UInt8] {
        guard !request.bundleID.isEmpty else {
            throw APNsCredentialError(.invalidArgument, "The bundle id is empty; give one such as com.example.app (or com.example.* for a wildcard app id).")
        }
        let certificates = request.developerCertificates.isEmpty
            ? [try issueDeveloperCertificate(teamID: request.teamID, now: now)] : request.developerCertificates
        let plist = try request.propertyList(developerCertificates: certificates, now: now)
        return try CMSSignedData.sign(plist, signer: signer.certificate, key: signer.key, chain: []).der
    }
}
