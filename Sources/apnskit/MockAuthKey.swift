// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import APNsMock
import Foundation

/// `apnskit mock issue --auth-key`: what the portal's Keys page gives for token auth, an
/// `AuthKey_<KEYID>.p8` (PKCS#8 P-256, 0600), registered with the mock gateway so it accepts
/// provider tokens signed by it.
enum MockAuthKey {
    static func issue(caFolder: String, keyID: String?, teamID: String, scope: AuthKeyRegistry.Scope = .team, out: String, force: Bool) throws {
        _ = try MockCA.load(from: caFolder)
        let id = keyID ?? randomIdentifier()
        let key = try PrivateKey.generate(.ec256)
        // Validates both identifiers the way the sender will.
        _ = try APNsTokenSigner(key: key, keyID: id, teamID: teamID)
        let path = try keyPath(out: out, keyID: id)
        try SecureFileWriter.preflight(path, force: force)
        try AuthKeyRegistry.register(.init(keyID: id, teamID: teamID, publicKey: try PublicKey(of: key), environments: scope.environments,
                                           topics: scope.topics), caFolder: caFolder, force: force)
        try SecureFileWriter.write(try key.pkcs8PEM(), to: path, sensitivity: .secret, force: force)
        Output.line("Wrote \(path) (EC P-256, key id \(id), team id \(teamID), \(describe(scope)), mode 0600); registered with the mock gateway in \(caFolder)/\(AuthKeyRegistry.folderName)/\(id).json")
    }

    /// How the portal would list the key.
    static func describe(_ scope: AuthKeyRegistry.Scope) -> String {
        switch scope {
        case .team: return "team key: both environments, every topic"
        case .environment(let environment): return "\(environment.rawValue) only"
        case .topics(let topics): return "topic-specific: \(topics.joined(separator: ", "))"
        }
    }

    /// Where the key goes: `-o` names a folder (existing, or a new one: any name not ending
    /// in `.p8`, which is created) that gets the portal's file name `AuthKey_<KEYID>.p8`, or
    /// the `.p8` file itself.
    static func keyPath(out: String, keyID: String) throws -> String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: out, isDirectory: &isDirectory) {
            return isDirectory.boolValue ? "\(out)/AuthKey_\(keyID).p8" : out
        }
        guard !out.hasSuffix(".p8") else { return out }
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        } catch {
            throw APNsCredentialError(.outputFailed, "Cannot create the folder \(out) for AuthKey_\(keyID).p8: \(error.localizedDescription); check the parent folder is writable, or give -o a path ending in .p8.")
        }
        return "\(out)/AuthKey_\(keyID).p8"
    }

    static func randomIdentifier() -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        return String((0..<10).map { _ in alphabet.randomElement()! })
    }
}
