// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CBuildInfo

/// The root command. Each subcommand lives in its own file and stays thin: parse, call a
/// library, print.
struct APNsKit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apnskit",
        abstract: "APNs provider credentials: make, convert, check, verify and send with them.",
        discussion: """
        Exit codes: 0 success; 1 a check found a problem (expired, wrong environment, key does \
        not match, credentials rejected); 2 usage error (bad flags, output exists without \
        --force, output folder not writable); 3 input unreadable, of the wrong kind, or \
        wrong/missing passphrase; 4 network/TLS failure.
        """,
        version: APNsKit.version,
        subcommands: CommandRegistry.all
    )

    /// `0.3.0 (1a2b3c4)`: the release (the VERSION file) and the commit built, so that a bug
    /// report names the exact code. Package.swift reads both when the package is built.
    static let version = "\(String(cString: apnskit_build_version())) (\(String(cString: apnskit_build_commit())))"
}
