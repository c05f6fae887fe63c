// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Hands out a passphrase only when an input turns out to be encrypted.
///
/// Asking lazily matters: an unencrypted key must never make a CI job block on a prompt, and
/// a `stdin`/`fd:` source can be read only once, so the first answer is kept for the next
/// input of the same command. With no source and no terminal it fails with a message that
/// names the file and carries the option name for the caller's hint, instead of hanging.
package final class PassphraseSupplier {
    /// Asks the user for a passphrase (`prompt`, then `confirm` to type it again when given);
    /// nil when no answer came. A program on a terminal passes SecureIO's `TerminalPrompt.read`:
    /// the prompt lives above this layer, so that the transport's dependencies hold no terminal code.
    package typealias Prompt = (_ prompt: String, _ confirm: String?) -> Passphrase?

    private let source: PassphraseSource?
    /// The option the caller reads the passphrase from, carried into errors for its hints.
    package let optionName: String?
    private let prompt: Prompt?
    private var cached: Passphrase?

    /// - Parameters:
    ///   - source: what the user gave, or nil.
    ///   - optionName: the caller's name for the passphrase option; errors carry it in
    ///     `CredentialError.option` so the caller can add its own hint (never in the sentence).
    ///   - prompt: asks on the terminal when no source is given and stdin is a TTY; nil never asks.
    package init(source: PassphraseSource?, optionName: String? = nil, prompt: Prompt? = nil) {
        self.source = source
        self.optionName = optionName
        self.prompt = prompt
    }

    /// A supplier that never has a passphrase: inputs must be unencrypted.
    package static var none: PassphraseSupplier { PassphraseSupplier(source: nil) }

    package var hasSource: Bool { source != nil }

    /// The passphrase for `label` (a file name), reading or prompting on first use.
    package func passphrase(for label: String) throws -> Passphrase {
        if let cached { return cached }
        let value: Passphrase
        if let source {
            value = try source.read()
        } else if let prompt, isatty(STDIN_FILENO) == 1, let typed = prompt("Passphrase for \(label): ", nil) {
            value = typed
        } else {
            var error = CredentialError(.missingPassphrase, "\(label) is encrypted and no passphrase was given.", file: label)
            error.option = optionName
            error.remedy = .passphrase
            throw error
        }
        cached = value
        return value
    }
}

extension PassphraseSupplier {
    /// A passphrase to encrypt a new file with: from the source if given, else asked twice on
    /// the terminal with `prompt`; with neither, a clear error naming `optionName`.
    package static func newPassphrase(source: PassphraseSource?, optionName: String? = nil, prompt: Prompt?, for label: String) throws -> Passphrase {
        if let source { return try source.read() }
        if let prompt, isatty(STDIN_FILENO) == 1,
           let typed = prompt("New passphrase for \(label): ", "Repeat the passphrase: ") {
            return typed
        }
        var error = CredentialError(.missingPassphrase, "A passphrase is needed to encrypt \(label) and none was given.", file: label)
        error.option = optionName
            error.remedy = .passphrase
        throw error
    }
}
