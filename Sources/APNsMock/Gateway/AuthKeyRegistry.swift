// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import APNsProtocol
import Foundation

/// The `.p8` keys the mock gateway accepts provider tokens from, kept beside the mock CA in
/// `auth-keys/<KEYID>.json` (`{"key_id": ..., "team_id": ..., "public_key": "<PEM>"}`), one
/// file per key so registering never rewrites a shared file. `apnskit mock issue --auth-key`
/// writes them; `mock serve` reads them at start.
package struct AuthKeyRegistry: Sendable {
    package struct Entry: Sendable {
        package let keyID: String
        package let teamID: String
        package let publicKey: PublicKey
        /// The environments the key may be used in (nil: both). APNs keys can be limited to
        /// one; a token for the other gets 403 BadEnvironmentKeyIdInToken (its `kid`) or
        /// BadEnvironmentKeyInToken (its signature), apns-protocol.md §8.
        package let environments: [APNsEnvironment]?
        /// A revoked key's tokens get 403 Forbidden.
        package let revoked: Bool
        /// A topic-specific key (since 2025, apns-protocol.md §8): the bundle ids it may push
        /// to (nil: every topic of the team). Another topic gets 400 TopicDisallowed.
        package let topics: [String]?

        package init(keyID: String, teamID: String, publicKey: PublicKey, environments: [APNsEnvironment]? = nil, revoked: Bool = false,
                    topics: [String]? = nil) {
            self.keyID = keyID
            self.teamID = teamID
            self.publicKey = publicKey
            self.environments = environments
            self.revoked = revoked
            self.topics = topics
        }

        /// Whether the key may push to `topic`: its bundle id, or one of the push-type topics
        /// under it (`<bundle>.voip`, `<bundle>.push-type.liveactivity`, ...).
        package func allows(topic: String) -> Bool {
            guard let topics else { return true }
            return TokenKeyScope.covers(topics, topic: topic)
        }
    }

    /// What the portal says a key is for (team, one environment, some topics).
    package typealias Scope = TokenKeyScope

    package static let folderName = "auth-keys"
    package private(set) var entries: [String: Entry] = [:]

    package init() {}

    package var publicKeys: [String: PublicKey] { entries.mapValues(\.publicKey) }

    package mutating func add(_ entry: Entry) { entries[entry.keyID] = entry }

    /// Every registered key under `caFolder`; an absent folder is an empty registry.
    package static func load(caFolder: String) throws -> AuthKeyRegistry {
        var registry = AuthKeyRegistry()
        let folder = "\(caFolder)/\(folderName)"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return registry }
        try SecureFileWriter.refuseSharedFolder(folder)
        for name in names.sorted() where name.hasSuffix(".json") {
            let path = "\(folder)/\(name)"
            let bytes = try CredentialFile.readBytes(path)
            guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
                  let keyID = object["key_id"] as? String, let teamID = object["team_id"] as? String,
                  let pem = object["public_key"] as? String else {
                throw APNsCredentialError(.unreadable, "\(path) is not an auth-key registration; remove it, or register the key again.")
            }
            let environments = (object["environments"] as? [String])?.compactMap(APNsEnvironment.init(rawValue:))
            registry.add(Entry(keyID: keyID, teamID: teamID, publicKey: try PublicKey(pem: Array(pem.utf8), label: path),
                               environments: environments, revoked: object["revoked"] as? Bool ?? false,
                               topics: object["topics"] as? [String]))
        }
        return registry
    }

    /// Writes the registration of `entry` under `caFolder`.
    package static func register(_ entry: Entry, caFolder: String, force: Bool) throws {
        let folder = "\(caFolder)/\(folderName)"
        if !FileManager.default.fileExists(atPath: folder) { try SecureFileWriter.createPrivateFolder(folder) }
        let pem = String(decoding: try entry.publicKey.pem(), as: UTF8.self)
        var fields: [(String, JSONValue)] = [("key_id", .string(entry.keyID)), ("team_id", .string(entry.teamID)), ("public_key", .string(pem))]
        if let environments = entry.environments { fields.append(("environments", .array(environments.map { .string($0.rawValue) }))) }
        if entry.revoked { fields.append(("revoked", .bool(true))) }
        if let topics = entry.topics { fields.append(("topics", .array(topics.map { .string($0) }))) }
        let json = JSONValue.object(fields)
        var bytes = json.serialized()
        bytes.append(0x0A)
        try SecureFileWriter.write(bytes, to: "\(folder)/\(entry.keyID).json", sensitivity: .public, force: force)
    }
}
