// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
internal import COpenSSL
import Foundation

/// What the developer portal is asked for: which app, which kind of push certificate, and
/// (for fixtures) how long it is valid and whether its extensions are sound.
package struct PortalRequest: Sendable {
    package enum Validity: Sendable {
        /// From now, `days` long.
        case days(Int)
        /// An explicit window, e.g. in the past for expired fixtures.
        case window(notBefore: Date, notAfter: Date)
        /// Apple's 13 months from now.
        case portalDefault
    }

    package var bundleID: String
    package var type: APNsCertificateType
    package var teamID: String
    package var organization: String
    package var country: String
    package var validity: Validity
    /// Replaces the topics extension's value with these raw bytes (fixtures only: lets tests
    /// write a malformed extension). Nil: the portal's topics for `type`.
    package var topicsDEROverride: [UInt8]?
    /// Writes these environment extensions instead of the type's (fixtures only: `[]` makes
    /// a certificate like those issued before Apple added the extensions). Nil: the type's.
    package var environmentsOverride: [APNsEnvironment]?
    /// Where the mock CA answers revocation questions (`mock ca --revocation-url`): the
    /// certificate then names `<url>/ocsp` in Authority Information Access and `<url>/wwdr.crl`
    /// as its CRL distribution point, as Apple's push certificates name Apple's. Nil: neither.
    package var revocationURL: String?

    package init(bundleID: String, type: APNsCertificateType = .development, teamID: String = "A1B2C3D4E5",
                organization: String = "apnskit Mock Developer", country: String = "US",
                validity: Validity = .portalDefault, topicsDEROverride: [UInt8]? = nil,
                environmentsOverride: [APNsEnvironment]? = nil) {
        self.bundleID = bundleID
        self.type = type
        self.teamID = teamID
        self.organization = organization
        self.country = country
        self.validity = validity
        self.topicsDEROverride = topicsDEROverride
        self.environmentsOverride = environmentsOverride
    }

    /// The environments the portal grants for each type.
    package var environments: [APNsEnvironment] {
        switch type {
        case .development: return [.sandbox]
        case .production, .passTypeID, .website: return [.production]
        case .universal, .voip, .watchKit, .other: return [.sandbox, .production]
        }
    }

    /// The topics the portal writes for each type; nil means no topics extension.
    package var topics: [APNsTopic]? {
        let app = APNsTopic(topic: bundleID, kinds: ["app"])
        let voip = APNsTopic(topic: bundleID + ".voip", kinds: ["voip"])
        let complication = APNsTopic(topic: bundleID + ".complication", kinds: ["complication"])
        switch type {
        case .development, .production, .universal: return [app, voip, complication]
        case .voip: return [voip]
        case .watchKit: return [app, complication]
        case .passTypeID, .website, .other: return nil
        }
    }

    /// `UID=<bundle>, CN=<prefix><bundle>, OU=<team>, O=<org>, C=<cc>`, in that order.
    package var subject: [DistinguishedName.Attribute] {
        [
            .init(key: "UID", value: bundleID),
            .init(key: "CN", value: (type.commonNamePrefix ?? "") + bundleID),
            .init(key: "OU", value: teamID),
            .init(key: "O", value: organization),
            .init(key: "C", value: country),
        ]
    }

    func window(now: Date) -> (Date, Date) {
        switch validity {
        case .days(let days):
            return (now, now.addingTimeInterval(TimeInterval(days) * 86_400))
        case .window(let notBefore, let notAfter):
            return (notBefore, notAfter)
        case .portalDefault:
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            return (now, calendar.date(byAdding: .month, value: 13, to: now) ?? now.addingTimeInterval(395 * 86_400))
        }
    }
}

extension MockCA {
    /// Signs `request` as Apple's portal would: the request's public key only (its subject and
    /// extensions are ignored, as the portal ignores them), RSA sha256WithRSA by the WWDR-like
    /// intermediate, KeyUsage digitalSignature (critical), EKU clientAuth, CA:FALSE, Apple's
    /// environment and topics extensions.
    ///
    /// - Throws: `unreadable` naming `label` when the request's signature does not verify.
    package func issue(_ request: CertificateSigningRequest, _ portal: PortalRequest, label: String = "the CSR",
                      now: Date = Date()) throws -> Certificate {
        guard request.signatureIsValid else {
            throw APNsCredentialError(.unreadable, "The signature of \(label) does not verify; the request is damaged or was edited after signing, make a new one.")
        }
        let builder = try CertificateBuilder()
        try builder.setPublicKey(of: request)
        return try finish(builder, portal, now: now)
    }

    /// Issues for `key`'s public half directly (tests that need many certificates fast).
    package func issue(forKey key: PrivateKey, _ portal: PortalRequest, now: Date = Date()) throws -> Certificate {
        let builder = try CertificateBuilder()
        try builder.setPublicKey(key)
        return try finish(builder, portal, now: now)
    }

    private func finish(_ builder: CertificateBuilder, _ portal: PortalRequest, now: Date) throws -> Certificate {
        guard !portal.bundleID.isEmpty else {
            throw APNsCredentialError(.invalidArgument, "The bundle id is empty; give one such as com.example.app.")
        }
        let (notBefore, notAfter) = portal.window(now: now)
        guard notAfter > notBefore else {
            throw APNsCredentialError(.invalidArgument, "The certificate would end before it starts; give a not-after date later than the not-before date.")
        }
        try builder.setSubject(portal.subject)
        try builder.setIssuer(intermediate)
        try builder.setValidity(notBefore: notBefore, notAfter: notAfter)
        try builder.addExtension(NID_basic_constraints, "critical,CA:FALSE")
        try builder.addExtension(NID_key_usage, "critical,digitalSignature")
        try builder.addExtension(NID_ext_key_usage, "clientAuth")
        try builder.addExtension(NID_subject_key_identifier, "hash")
        try builder.addExtension(NID_authority_key_identifier, "keyid:always", issuer: intermediate)
        if let url = portal.revocationURL {
            try builder.addExtension(NID_info_access, "OCSP;URI:\(MockRevocation.ocspURL(url))")
            try builder.addExtension(NID_crl_distribution_points, "URI:\(MockRevocation.crlURL(url))")
        }
        for environment in portal.environmentsOverride ?? portal.environments {
            try builder.addExtension(oid: environment.extensionOID, der: DERWriter.null)
        }
        if let raw = portal.topicsDEROverride {
            try builder.addExtension(oid: APNsTopics.oid, der: raw)
        } else if let topics = portal.topics {
            try builder.addExtension(oid: APNsTopics.oid, der: APNsTopics.encode(topics))
        }
        return try builder.sign(with: intermediateKey)
    }
}
