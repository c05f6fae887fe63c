// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport

/// The files `scripts/credential-corpus.py` writes with tools other than apnskit (openssl,
/// keytool, certtool, pk12util, Python cryptography), and its manifest of what each writer put
/// in. Generated once per test run (the JVM start-ups and RSA key generation take seconds).
struct CredentialCorpus: Sendable {
    struct Entry: Decodable, Sendable {
        let file: String
        let writer: String
        let format: String
        /// The passphrase the writer used; nil when none is needed to read the file.
        let passphrase: String?
        let certificates: Int
        let keys: Int
        /// Key + certificate pairs.
        let identities: Int
        /// Common name of the certificate the file is about.
        let subject: String?
        /// `YYYY-MM-DD`.
        let notAfter: String?
        let keyMatch: Bool?
        let expired: Bool
        let ca: Bool
        /// The status `check --min-days 0 --require-key --strict --ca-file ca.pem` must give it.
        let gate: String
        /// The first identity's friendlyName, when the writer was given one.
        let friendlyName: String?
        /// For a key whose cipher no OpenSSL implements: the cipher's OID.
        let unsupported: String?
    }

    private struct Manifest: Decodable {
        let passphrase: String
        let files: [Entry]
    }

    let folder: String
    let passphrase: String
    let entries: [Entry]
    /// How long the script took, for the README.
    let seconds: Double

    func path(_ file: String) -> String { folder + "/" + file }

    /// The environment that carries the passphrase to `--passin env:CORPUS_PASS`.
    var environment: [String: String] { ["CORPUS_PASS": passphrase, "CORPUS_WRONG": "not-the-" + passphrase] }

    static let shared = SharedFixture { try await CredentialCorpus.generate() }

    struct GenerationFailed: Error, CustomStringConvertible {
        let description: String
    }

    static func generate() async throws -> CredentialCorpus {
        let folder = NSTemporaryDirectory() + "apnskit-credential-corpus-" + UUID().uuidString
        let started = Date()
        let result = try await run(["python3", Binaries.packageRoot + "/scripts/credential-corpus.py", folder])
        guard result.status == 0 else {
            // A missing writer is a failure with the script's sentence, never a skip.
            throw GenerationFailed(description: "scripts/credential-corpus.py failed (exit \(result.status)): \(result.err)")
        }
        let seconds = Date().timeIntervalSince(started)
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))
        let manifest = try JSONDecoder().decode(Manifest.self, from: data)
        RemovedAtExit.add(folder)
        return CredentialCorpus(folder: folder, passphrase: manifest.passphrase, entries: manifest.files, seconds: seconds)
    }
}

extension Run {
    /// The inspect JSON's file reports, by file name.
    func reportsByName() throws -> [String: [String: Any]] {
        let files = try json()["files"] as? [[String: Any]] ?? []
        var result: [String: [String: Any]] = [:]
        for report in files {
            if let path = report["path"] as? String { result[(path as NSString).lastPathComponent] = report }
        }
        return result
    }

    /// The check JSON's results, by file name.
    func resultsByName() throws -> [String: [String: Any]] {
        let results = try json()["results"] as? [[String: Any]] ?? []
        var byName: [String: [String: Any]] = [:]
        for result in results {
            if let path = result["path"] as? String { byName[(path as NSString).lastPathComponent] = result }
        }
        return byName
    }
}
