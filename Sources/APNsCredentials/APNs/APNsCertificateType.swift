// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import APNsProtocol
/// What kind of Apple push certificate a certificate is, read from its common name prefix
/// (apns-protocol.md §2). The portal encodes the type only there; the environments are in extensions.
package enum APNsCertificateType: String, Sendable, Codable, CaseIterable {
    case development
    case production
    case universal
    case voip
    case passTypeID = "passTypeId"
    case website
    case watchKit
    /// Not one of Apple's push certificate names.
    case other

    /// Common name prefixes, most specific first, with the type and a human name.
    package static let prefixes: [(prefix: String, type: APNsCertificateType, name: String)] = [
        ("Apple Development IOS Push Services: ", .development, "Apple Development iOS Push Services"),
        ("Apple Production IOS Push Services: ", .production, "Apple Production iOS Push Services"),
        ("Apple Development Mac Push Services: ", .development, "Apple Development Mac Push Services"),
        ("Apple Production Mac Push Services: ", .production, "Apple Production Mac Push Services"),
        ("Apple Push Services: ", .universal, "Apple Push Services (sandbox and production)"),
        ("VoIP Services: ", .voip, "VoIP Services"),
        ("WatchKit Services: ", .watchKit, "WatchKit Services"),
        ("Website Push ID: ", .website, "Website Push ID"),
        ("Pass Type ID: ", .passTypeID, "Pass Type ID"),
    ]

    /// `typeDescription` of a certificate that carries Apple's push extensions under a common
    /// name with none of the prefixes above (apns-protocol.md §2: the extensions decide).
    package static let unnamedPushDescription = "Apple push certificate (its common name names no known type)"

    /// The prefix `apnskit mock issue` and Apple's portal write for this type.
    package var commonNamePrefix: String? {
        Self.prefixes.first { $0.type == self }?.prefix
    }

    /// The type, the human name, and the identifier after the prefix, for a common name.
    package static func classify(commonName: String?) -> (type: APNsCertificateType, name: String, identifier: String?) {
        guard let commonName else { return (.other, "not an Apple push certificate", nil) }
        for entry in prefixes where commonName.hasPrefix(entry.prefix) {
            return (entry.type, entry.name, String(commonName.dropFirst(entry.prefix.count)))
        }
        return (.other, "not an Apple push certificate", nil)
    }

    /// The environments a type implies, used only when a certificate lacks Apple's
    /// environment extensions (certificates issued before they existed).
    package var impliedEnvironments: [APNsEnvironment] {
        switch self {
        case .development: return [.sandbox]
        case .production, .passTypeID, .website: return [.production]
        case .universal, .voip, .watchKit: return [.sandbox, .production]
        case .other: return []
        }
    }
}

extension APNsEnvironment {
    /// The certificate extension that allows this environment (value DER NULL).
    package var extensionOID: String {
        switch self {
        case .sandbox: return "1.2.840.113635.100.6.3.1"
        case .production: return "1.2.840.113635.100.6.3.2"
        }
    }
}
