// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

extension CLIWorkspace {
    /// A workspace with an apnskit test CA, a key and an Apple-like certificate made by the CLI
    /// itself (`mock ca`, `csr`, `mock issue`): `ca/`, `push.key`, `push.cer`; `combined`: and
    /// both in `apns.pem`, as push takes them.
    static func withPushCertificate(combined: Bool = false) async throws -> CLIWorkspace {
        let w = try CLIWorkspace("apnskit-hardening")
        try await w.expectSuccess("mock", "ca", "-o", "ca")
        try await w.expectSuccess("csr", "--email", "dev@example.com", "--common-name", "Hardening Push", "--key-out", "push.key", "--csr-out", "push.csr")
        try await w.expectSuccess("mock", "issue", "push.csr", "--ca", "ca", "--bundle-id", "com.example.hardening", "--type", "universal", "-o", "push.cer")
        if combined { try await w.expectSuccess("combine", "push.cer", "push.key", "-o", "apns.pem") }
        return w
    }

    @discardableResult
    func expectSuccess(_ arguments: String..., stdin: String? = nil, environment: [String: String] = [:],
                       sourceLocation: SourceLocation = #_sourceLocation) async throws -> ProcessResult {
        try await expectSuccess(arguments, stdin: stdin, environment: environment, sourceLocation: sourceLocation)
    }

    @discardableResult
    func expectSuccess(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
                       sourceLocation: SourceLocation = #_sourceLocation) async throws -> ProcessResult {
        let result = try await run(arguments, stdin: stdin, environment: environment)
        #expect(result.status == 0, "apnskit \(arguments.joined(separator: " ")): \(result)", sourceLocation: sourceLocation)
        return result
    }

    /// The base64 lines of every PEM body in `name` (what a leaked key would look like).
    func pemBodyLines(_ name: String) throws -> [String] {
        String(decoding: try dir.read(name), as: UTF8.self).split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("-----") && !$0.contains(":") && $0.count >= 24 }
    }
}
