// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// A CLI fixture with a mock CA and the credentials the gateway tests use, and `mock serve`
/// started in it on free ports.
extension CLIFixture {
    /// `mockca/`, `AuthKey_ABC123DEFG.p8` (team TEAM123456); with `certificates`, also
    /// `apns.pem` (development, com.example.app) and `production.pem`.
    func prepareMock(certificates: Bool = false) async throws {
        var steps = [
            ["mock", "ca", "-o", "mockca"],
            ["mock", "issue", "--auth-key", "--ca", "mockca", "--team-id", "TEAM123456", "--key-id", "ABC123DEFG", "-o", "."],
        ]
        if certificates {
            steps += [
                ["csr", "--email", "d@example.com", "--common-name", "Push", "--key-out", "push.key", "--csr-out", "push.csr"],
                ["mock", "issue", "push.csr", "--ca", "mockca", "--bundle-id", "com.example.app", "--type", "development", "-o", "dev.cer"],
                ["combine", "dev.cer", "push.key", "-o", "apns.pem"],
                ["mock", "issue", "push.csr", "--ca", "mockca", "--bundle-id", "com.example.app", "--type", "production", "-o", "prod.cer"],
                ["combine", "prod.cer", "push.key", "-o", "production.pem"],
            ]
        }
        for step in steps {
            let result = try await run(step)
            try #require(result.status == 0, "\(step): \(result)")
        }
    }

    /// A provider token for `AuthKey_ABC123DEFG.p8` (team TEAM123456), for curl's
    /// `authorization: bearer` header.
    func providerToken() async throws -> String {
        let made = try await run(["token", "create", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456"])
        try #require(made.status == 0, "\(made)")
        return String(made.stdout.split(separator: "\n").last ?? "")
    }

    /// `mock serve` on free ports (provider only, plus `arguments`); its ports file as read.
    func startMock(_ arguments: [String] = [], portsFile: String = "ports.json") async throws -> (server: BackgroundProcess, ports: [String: Any]) {
        try await BackgroundProcess.mockServe(["--ca", "mockca", "--port", "0", "--no-legacy", "--no-feedback", "-q"] + arguments,
                                              portsFile: portsFile, directory: dir.path)
    }
}
