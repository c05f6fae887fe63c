// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization

/// A temporary folder with `apnskit` (and `openssl`) run in it, as a user's shell would: the
/// one CLI workspace of the test suites. Each run's stdin is not a TTY (empty unless given),
/// and every result is kept (`results`), so a suite can check all that was printed (the
/// secrets tests look for a passphrase in any of it). The suites' fixtures build on it: the
/// CLI tests' `CLIFixture` (a stand-in portal CA), the hardening tests' workspace with a mock CA
/// and an Apple-like certificate.
public final class CLIWorkspace: Sendable {
    public let dir: TemporaryDirectory
    private let log = Mutex<[(command: String, result: ProcessResult)]>([])

    public init(_ prefix: String = "apnskit-cli") throws {
        dir = try TemporaryDirectory(prefix)
    }

    /// Every run so far: its arguments (joined by spaces) and its result.
    public var results: [(command: String, result: ProcessResult)] { log.withLock { $0 } }

    /// Runs `apnskit ARGUMENTS` in the folder, with `environment` added to this process's.
    @discardableResult
    public func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) async throws -> ProcessResult {
        try await record(arguments, Binaries.apnskit(arguments, stdin: stdin.map { Data($0.utf8) }, environment: environment, directory: dir.path))
    }

    @discardableResult
    public func run(_ arguments: String..., stdin: String? = nil, environment: [String: String] = [:]) async throws -> ProcessResult {
        try await run(arguments, stdin: stdin, environment: environment)
    }

    /// Runs `apnskit ARGUMENTS` under `sh -c 'umask MASK; exec apnskit ...'`.
    @discardableResult
    public func runWithUmask(_ mask: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
        try await record(arguments, ProcessRunner.run("/bin/sh", ["-c", "umask \(mask); exec \"$0\" \"$@\"", Binaries.apnskit] + arguments,
                                                      environment: environment, directory: dir.path))
    }

    /// Runs the `openssl` CLI in the folder.
    @discardableResult
    public func openssl(_ arguments: [String]) async throws -> ProcessResult {
        try await Binaries.openssl(arguments, directory: dir.path)
    }

    private func record(_ arguments: [String], _ result: ProcessResult) -> ProcessResult {
        log.withLock { $0.append((arguments.joined(separator: " "), result)) }
        return result
    }
}
