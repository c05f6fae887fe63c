// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore

/// The exit codes every command uses (README "Exit codes").
enum ExitStatus {
    static let success: Int32 = 0
    /// A check found a problem: expired, wrong environment, key mismatch, credentials rejected.
    static let problem: Int32 = 1
    /// Usage: bad flags, output exists without --force, output folder not writable.
    static let usage: Int32 = 2
    /// Input unreadable, of the wrong kind, or wrong/missing passphrase.
    static let input: Int32 = 3
    /// Network or TLS failure.
    static let network: Int32 = 4

    static func code(for kind: APNsCredentialError.Kind) -> Int32 {
        switch kind {
        case .keyMismatch: return problem
        case .outputExists, .outputFailed, .invalidArgument: return usage
        case .unreadable, .excessiveCost, .wrongKind, .wrongPassphrase, .missingPassphrase, .unsupportedAlgorithm, .ambiguousIdentity: return input
        case .internalFailure: return input
        }
    }
}
