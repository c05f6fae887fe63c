// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// The property list inside a provisioning profile, read into the facts push depends on
/// (apns-protocol.md §9): who the app is (application identifier, team), which APNs
/// environment its builds register with (`aps-environment`), when the profile expires, which
/// devices it runs on, and which developer certificates may sign the app.
///
/// Parsing uses Foundation's property-list parser after `PropertyListBounds` has checked the
/// text, so a hostile profile is refused with a sentence before the parser sees it.
package struct ProvisioningProfile: Sendable {
    package var name: String
    package var uuid: String
    package var platforms: [String]
    package var appIDName: String?
    /// `TEAMID.com.example.app`, `TEAMID.com.example.*` or `TEAMID.*`.
    package var applicationIdentifier: String
    package var teamIdentifiers: [String]
    package var teamName: String?
    /// `development` or `production`; nil when push is not enabled.
    package var apsEnvironment: String?
    package var getTaskAllow: Bool?
    package var creationDate: Date
    package var expirationDate: Date
    package var provisionsAllDevices: Bool
    package var deviceCount: Int
    /// DER of each entry in `DeveloperCertificates`.
    package var developerCertificates: [[UInt8]]

    /// The entitlement that carries the environment: iOS, tvOS, watchOS, visionOS use the
    /// first, macOS the second.
    package static let apsEnvironmentKeys = ["aps-environment", "com.apple.developer.aps-environment"]

    /// The dates a profile can carry: Apple's profiles began in 2008 and a year past 9999 has no
    /// ISO 8601 form. The parser reads `99999999-12-31` as a year near 5.8 million (shown as
    /// "5828963-12-20") and a negative year as 0001, so such a date is refused, not shown.
    static let plausibleDates = Date(timeIntervalSince1970: 946_684_800)...Date(timeIntervalSince1970: 253_402_300_799)

    /// Every `<date>` as Apple writes it, `YYYY-MM-DDTHH:MM:SSZ`: the parser drops a leading
    /// minus sign (`-2026-01-01...` read as 2026) and overflows a long year, so anything else
    /// is refused with the text it found.
    static func checkDateTexts(_ bytes: [UInt8], label: String) throws {
        // A plain byte scan (no NSRegularExpression: this runs in the fuzz pass under ASan,
        // and Foundation's regex on Linux goes through CoreFoundation).
        let open = Array("<date>".utf8), close = Array("</date>".utf8)
        var index = 0
        while let start = firstIndex(of: open, in: bytes, from: index) {
            let contentStart = start + open.count
            guard let end = firstIndex(of: close, in: bytes, from: contentStart) else { return }
            let date = Array(bytes[contentStart..<end])
            if !isAppleDate(date) {
                throw APNsCredentialError(.unreadable, "\(label): the profile holds the date '\(String(decoding: date.prefix(40), as: UTF8.self))', not one of the form 2026-01-31T12:00:00Z between the years 2000 and 9999; the profile is damaged, download it again.")
            }
            index = end + close.count
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, digits where the form has them.
    private static func isAppleDate(_ text: [UInt8]) -> Bool {
        let form = Array("0000-00-00T00:00:00Z".utf8)
        guard text.count == form.count else { return false }
        return zip(text, form).allSatisfy { byte, expected in
            expected == UInt8(ascii: "0") ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) : byte == expected
        }
    }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        var index = from
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0], Array(bytes[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }

    /// Parses the XML property list of a profile; `label` names the file in messages.
    ///
    /// `PropertyListDecoder` rather than `PropertyListSerialization`: on Linux the latter runs
    /// CoreFoundation's parser, which leaks its error object (about 470 bytes) for every
    /// malformed list (found by the fuzz harness, confirmed with valgrind); the decoder is
    /// swift-foundation's own parser and leaks nothing.
    package static func parse(plist bytes: [UInt8], label: String) throws -> ProvisioningProfile {
        try PropertyListBounds.check(bytes, label: label)
        let plist: ProfilePropertyList
        do {
            plist = try PropertyListDecoder().decode(ProfilePropertyList.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw ProfilePropertyList.sentence(for: error, label: label)
        }
        try checkDateTexts(bytes, label: label)
        for (key, date) in [("CreationDate", plist.CreationDate), ("ExpirationDate", plist.ExpirationDate)] where !plausibleDates.contains(date) {
            throw APNsCredentialError(.unreadable, "\(label): the profile's \(key) is not a date between the years 2000 and 9999; the profile is damaged, download it again.")
        }
        let entitlements = plist.Entitlements
        guard let applicationIdentifier = entitlements.applicationIdentifier ?? entitlements.macApplicationIdentifier else {
            throw APNsCredentialError(.unreadable, "\(label): the profile has no Entitlements.application-identifier; it is not a complete provisioning profile, download it again.")
        }
        return ProvisioningProfile(
            name: plist.Name, uuid: plist.UUID, platforms: plist.Platform ?? [], appIDName: plist.AppIDName,
            applicationIdentifier: applicationIdentifier, teamIdentifiers: plist.TeamIdentifier ?? [], teamName: plist.TeamName,
            apsEnvironment: entitlements.apsEnvironment ?? entitlements.macApsEnvironment, getTaskAllow: entitlements.getTaskAllow,
            creationDate: plist.CreationDate, expirationDate: plist.ExpirationDate,
            provisionsAllDevices: plist.ProvisionsAllDevices ?? false, deviceCount: plist.ProvisionedDevices?.count ?? 0,
            developerCertificates: (plist.DeveloperCertificates ?? []).map { Array($0) })
    }
}

/// The keys of a profile's property list that apnskit reads, named as Apple names them
/// (apns-protocol.md §9); every other key is ignored.
struct ProfilePropertyList: Decodable {
    struct Entitlements: Decodable {
        let applicationIdentifier: String?
        let macApplicationIdentifier: String?
        let apsEnvironment: String?
        let macApsEnvironment: String?
        let getTaskAllow: Bool?

        enum CodingKeys: String, CodingKey {
            case applicationIdentifier = "application-identifier"
            case macApplicationIdentifier = "com.apple.application-identifier"
            case apsEnvironment = "aps-environment"
            case macApsEnvironment = "com.apple.developer.aps-environment"
            case getTaskAllow = "get-task-allow"
        }
    }

    let Name: String
    let UUID: String
    let Platform: [String]?
    let AppIDName: String?
    let TeamIdentifier: [String]?
    let TeamName: String?
    let CreationDate: Date
    let ExpirationDate: Date
    let ProvisionsAllDevices: Bool?
    let ProvisionedDevices: [String]?
    let DeveloperCertificates: [Data]?
    let Entitlements: Entitlements

    /// One sentence for a decoding failure, naming the key (`Entitlements.aps-environment`).
    static func sentence(for error: DecodingError, label: String) -> APNsCredentialError {
        func path(_ context: DecodingError.Context, _ last: CodingKey? = nil) -> String {
            (context.codingPath + (last.map { [$0] } ?? [])).map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return APNsCredentialError(.unreadable, "\(label): the profile has no \(path(context, key)); it is not a complete provisioning profile, download it again.")
        case .typeMismatch(let type, let context) where context.codingPath.isEmpty:
            return APNsCredentialError(.unreadable, "\(label) holds a property list that is not a dictionary but \(typeName(type)); it is not a provisioning profile.")
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return APNsCredentialError(.unreadable, "\(label): the profile's \(path(context)) is not \(typeName(type)); the profile is damaged, download it again.")
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            return APNsCredentialError(.unreadable, "\(label): the profile's \(path(context)) is not a valid value; the profile is damaged, download it again.")
        default:
            return APNsCredentialError(.unreadable, "\(label) holds a property list that does not parse; the profile is damaged, download it again.")
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Dictionary") || name.hasPrefix("KeyedDecodingContainer") { return "a dictionary" }
        if name.hasPrefix("Array") || name.hasPrefix("UnkeyedDecodingContainer") { return "an array" }
        switch name {
        case "String": return "a string"
        case "Date": return "a date"
        case "Bool": return "a boolean"
        case "Data": return "data"
        default: return "a \(name)"
        }
    }
}
