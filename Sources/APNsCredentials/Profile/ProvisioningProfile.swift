import Foundation

/// The property list inside a provisioning profile, read into the facts push depends on
/// (apns-protocol.md §9): who the app is (application identifier, team), which APNs
/// environment its builds register with (`aps-environment`), when the profile expires, which
/// devices it runs on, and which developer certificates may sign the app.
///
/// Parsing uses Foundation's property-list parser after `PropertyListBounds` has checked the
/// text, so a hostile profile is refused with a sentence before the parser sees it.
public struct ProvisioningProfile: Sendable {
    public var name: String
    public var uuid: String
    public var platforms: [String]
    public var appIDName: String?
    /// `TEAMID.com.example.app`, `TEAMID.com.example.*` or `TEAMID.*`.
    public var applicationIdentifier: String
    public var teamIdentifiers: [String]
    public var teamName: String?
    /// `development` or `production`; nil when push is not enabled.
    public var apsEnvironment: String?
    public var getTaskAllow: Bool?
    public var creationDate: Date
    public var expirationDate: Date
    public var provisionsAllDevices: Bool
    public var deviceCount: Int
    /// DER of each entry in `DeveloperCertificates`.
    public var developerCertificates: [[UInt8]]

    /// The entitlement that carries the environment: iOS, tvOS, watchOS, visionOS use the
    /// first, macOS the second.
    public static let apsEnvironmentKeys = ["aps-environment", "com.apple.developer.aps-environment"]

    /// Parses the XML property list of a profile; `label` names the file in messages.
    public static func parse(plist bytes: [UInt8], label: String) throws -> ProvisioningProfile {
        try PropertyListBounds.check(bytes, label: label)
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        } catch {
            throw CredentialError(.unreadable, "\(label) holds a property list that does not parse; the profile is damaged, download it again.")
        }
        guard let root = object as? [String: Any] else {
            throw CredentialError(.unreadable, "\(label) holds a property list that is not a dictionary; it is not a provisioning profile.")
        }
        let fields = PlistFields(root, label: label)
        let entitlements = try fields.dictionary("Entitlements")
        let entitlementFields = PlistFields(entitlements, label: label, prefix: "Entitlements.")
        var apsEnvironment: String? = nil
        for key in apsEnvironmentKeys where apsEnvironment == nil {
            apsEnvironment = try entitlementFields.optionalString(key)
        }
        let applicationIdentifier = try entitlementFields.optionalString("application-identifier")
            ?? entitlementFields.string("com.apple.application-identifier")
        let devices = try fields.optionalArray("ProvisionedDevices") ?? []
        let certificates = try fields.optionalArray("DeveloperCertificates") ?? []
        return ProvisioningProfile(
            name: try fields.string("Name"),
            uuid: try fields.string("UUID"),
            platforms: try (fields.optionalArray("Platform") ?? []).map { try fields.element($0, of: "Platform", as: String.self) },
            appIDName: try fields.optionalString("AppIDName"),
            applicationIdentifier: applicationIdentifier,
            teamIdentifiers: try (fields.optionalArray("TeamIdentifier") ?? []).map { try fields.element($0, of: "TeamIdentifier", as: String.self) },
            teamName: try fields.optionalString("TeamName"),
            apsEnvironment: apsEnvironment,
            getTaskAllow: try entitlementFields.optionalBool("get-task-allow"),
            creationDate: try fields.date("CreationDate"),
            expirationDate: try fields.date("ExpirationDate"),
            provisionsAllDevices: try fields.optionalBool("ProvisionsAllDevices") ?? false,
            deviceCount: devices.count,
            developerCertificates: try certificates.map { Array(try fields.element($0, of: "DeveloperCertificates", as: Data.self)) })
    }
}

/// Typed reads from a property-list dictionary, each failure one sentence naming the key.
struct PlistFields {
    let values: [String: Any]
    let label: String
    var prefix = ""

    init(_ values: [String: Any], label: String, prefix: String = "") {
        self.values = values
        self.label = label
        self.prefix = prefix
    }

    private func wrongType(_ key: String, _ expected: String) -> CredentialError {
        CredentialError(.unreadable, "\(label): the profile's \(prefix)\(key) is not \(expected); the profile is damaged, download it again.")
    }

    private func missing(_ key: String) -> CredentialError {
        CredentialError(.unreadable, "\(label): the profile has no \(prefix)\(key); it is not a complete provisioning profile, download it again.")
    }

    func optional<T>(_ key: String, _ type: T.Type, _ expected: String) throws -> T? {
        guard let value = values[key] else { return nil }
        guard let typed = value as? T else { throw wrongType(key, expected) }
        return typed
    }

    func string(_ key: String) throws -> String {
        guard let value = try optionalString(key) else { throw missing(key) }
        return value
    }

    func optionalString(_ key: String) throws -> String? { try optional(key, String.self, "a string") }

    func optionalBool(_ key: String) throws -> Bool? { try optional(key, Bool.self, "a boolean") }

    func date(_ key: String) throws -> Date {
        guard let value = try optional(key, Date.self, "a date") else { throw missing(key) }
        return value
    }

    func dictionary(_ key: String) throws -> [String: Any] {
        guard let value = try optional(key, [String: Any].self, "a dictionary") else { throw missing(key) }
        return value
    }

    func optionalArray(_ key: String) throws -> [Any]? { try optional(key, [Any].self, "an array") }

    func element<T>(_ value: Any, of key: String, as type: T.Type) throws -> T {
        guard let typed = value as? T else {
            throw wrongType(key, "an array of \(T.self == Data.self ? "data" : "strings")")
        }
        return typed
    }
}
