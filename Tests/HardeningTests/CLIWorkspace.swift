// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// A temporary folder with an apnskit test CA, a key and an Apple-like certificate made by the
/// CLI itself (`mock ca`, `csr`, `mock issue`), and a runner that records every result.
final class CLIWorkspace: @unchecked Sendable {
    let dir: TemporaryDirectory
    private(set) var results: [(command: String, result: ProcessResult)] = []

    init() async throws {
        dir = try TemporaryDirectory("apnskit-hardening")
        try await expectSuccess("mock", "ca", "-o", "ca")
        try await expectSuccess("csr", "--email", "dev@example.com", "--common-name", "Hardening Push", "--key-out", "push.key", "--csr-out", "push.csr")
        try await expectSuccess("mock", "issue", "push.csr", "--ca", "ca", "--bundle-id", "com.example.hardening", "--type", "universal", "-o", "push.cer")
    }

    /// Runs apnskit in the folder (stdin not a TTY) and keeps the result for later checks.
    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) async throws -> ProcessResult {
        let result = try await Binaries.apnskit(arguments, stdin: stdin.map { Data($0.utf8) } ?? Data(), environment: environment, directory: dir.path)
        results.append((arguments.joined(separator: " "), result))
        return result
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

    /// Runs apnskit under `sh -c 'umask MASK; exec apnskit ...'`.
    @discardableResult
    func runWithUmask(_ mask: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
        let result = try await ProcessRunner.run("/bin/sh", ["-c", "umask \(mask); exec \"$0\" \"$@\"", Binaries.apnskit] + arguments,
                                           environment: environment, directory: dir.path)
        results.append((arguments.joined(separator: " "), result))
        return result
    }

    /// The base64 lines of every PEM body in `name` (what a leaked key would look like).
    func pemBodyLines(_ name: String) throws -> [String] {
        String(decoding: try dir.read(name), as: UTF8.self).split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("-----") && !$0.contains(":") && $0.count >= 24 }
    }
}
