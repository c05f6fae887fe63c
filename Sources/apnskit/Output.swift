// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import ArgumentParser
import Foundation
import Synchronized

/// Where commands print. Data and summaries go to stdout; diagnostics to stderr, so that
/// `apnskit ... -o - | other-tool` stays clean.
enum Output {
    /// Set by `--verbose` (GlobalOptions): error messages then carry OpenSSL's error queue.
    /// Read from any thread that reports an error, hence the lock.
    static var verbose: Bool {
        get { verboseFlag.withLock { $0 } }
        set { verboseFlag.withLock { $0 = newValue } }
    }
    private static let verboseFlag = Locked(false)

    static func line(_ text: String) { print(text) }

    /// Text that carries its own line ends (a whole report).
    static func text(_ text: String) { print(text, terminator: "") }

    static func note(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

    static func warning(_ text: String) { note("apnskit: warning: \(text)") }

    /// Prints one sentence for `error` and exits with its code.
    static func fail(_ error: Error) -> Never {
        switch error {
        case let error as APNsCredentialError:
            note("apnskit: \(CredentialErrorText.sentence(error))")
            if verbose { for line in error.details { note("  openssl: \(line)") } }
            exit(ExitStatus.code(for: error.kind))
        case let error as CommandFailure:
            note("apnskit: \(error.message)")
            exit(error.status)
        case let error as ExitCode:
            exit(error.rawValue)
        default:
            let code = APNsKit.exitCode(for: error)
            if code == .success {
                // --help, --version and clean exits: ArgumentParser's text, on stdout.
                let message = APNsKit.fullMessage(for: error)
                if !message.isEmpty { print(message) }
                exit(0)
            }
            if code == .validationFailure {
                Main.exitForParseError(error)
            }
            note("apnskit: \(error)")
            exit(ExitStatus.input)
        }
    }
}

/// A failure decided by a command (not the library), with its exit status.
struct CommandFailure: Error {
    let message: String
    let status: Int32
}
