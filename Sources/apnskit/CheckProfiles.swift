// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Foundation

/// The provisioning-profile half of `apnskit check`: profiles are held back until every file
/// of the run has been read, then cross-checked against the run's push credentials and
/// `--push-credential` (apns-protocol.md §9).
struct CheckProfiles {
    /// From `--push-credential`, read up front so a bad one stops the run before any output.
    let explicit: [PushCredentialFacts]
    let passphrases: PassphraseSupplier

    init(pushCredentials: [String], passphrases: PassphraseSupplier) throws {
        self.passphrases = passphrases
        explicit = try pushCredentials.map { path in
            let report = CredentialInspector.inspect(path, passphrases: passphrases)
            if report.kind == .unreadable {
                throw APNsCredentialError(.unreadable, "--push-credential: \(report.error ?? "\(displayName(path)) is unreadable.")")
            }
            guard let facts = PushCredentialFacts(report) else {
                throw APNsCredentialError(.wrongKind, "--push-credential \(displayName(path)) is \(report.summary), not a push certificate or .p8 key; give the credential your server sends with.")
            }
            return facts
        }
    }

    /// Cross-checks every profile result in place; returns their indexes, in order, for the
    /// text output to print them last. The run's other files are read again only when it has
    /// a profile.
    func crossCheck(_ results: inout [CheckResult], files: [String]) -> [Int] {
        let profiles = results.indices.filter { results[$0].profile != nil }
        guard !profiles.isEmpty else { return [] }
        let inRun = zip(files, results).compactMap { file, result -> PushCredentialFacts? in
            guard result.profile == nil, result.status != .unreadable else { return nil }
            return PushCredentialFacts(CredentialInspector.inspect(file, passphrases: passphrases))
        }
        let credentials = inRun + explicit
        for index in profiles {
            guard let profile = results[index].profile else { continue }
            results[index] = ProfileCheck.applying(ProfileCheck.crossCheck(profile, against: credentials), to: results[index])
        }
        return profiles
    }
}
