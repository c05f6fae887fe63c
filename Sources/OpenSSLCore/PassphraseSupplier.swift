import Foundation

/// Hands out a passphrase only when an input turns out to be encrypted.
///
/// Asking lazily matters: an unencrypted key must never make a CI job block on a prompt, and
/// a `stdin`/`fd:` source can be read only once, so the first answer is kept for the next
/// input of the same command. With no source and no terminal it fails with a message that
/// names the file and carries the option name for the caller's hint, instead of hanging.
package final class PassphraseSupplier {
    private let source: PassphraseSource?
    /// The option the caller reads the passphrase from, carried into errors for its hints.
    package let optionName: String?
    private let allowPrompt: Bool
    private var cached: Passphrase?

    /// - Parameters:
    ///   - source: what the user gave, or nil.
    ///   - optionName: the caller's name for the passphrase option; errors carry it in
    ///     `APNsCredentialError.option` so the caller can add its own hint (never in the sentence).
    ///   - allowPrompt: prompt on the terminal when no source is given and stdin is a TTY.
    package init(source: PassphraseSource?, optionName: String? = nil, allowPrompt: Bool = true) {
        self.source = source
        self.optionName = optionName
        self.allowPrompt = allowPrompt
    }

    /// A supplier that never has a passphrase: inputs must be unencrypted.
    package static var none: PassphraseSupplier { PassphraseSupplier(source: nil, allowPrompt: false) }

    package var hasSource: Bool { source != nil }

    /// The passphrase for `label` (a file name), reading or prompting on first use.
    package func passphrase(for label: String) throws -> Passphrase {
        if let cached { return cached }
        let value: Passphrase
        if let source {
            value = try source.read()
        } else if allowPrompt, isatty(STDIN_FILENO) == 1, let typed = TerminalPrompt.read(prompt: "Passphrase for \(label): ") {
            value = typed
        } else {
            var error = APNsCredentialError(.missingPassphrase, "\(label) is encrypted and no passphrase was given.", file: label)
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
    /// the terminal; with neither, a clear error naming `optionName`.
    package static func newPassphrase(source: PassphraseSource?, optionName: String? = nil, for label: String) throws -> Passphrase {
        if let source { return try source.read() }
        if isatty(STDIN_FILENO) == 1,
           let typed = TerminalPrompt.read(prompt: "New passphrase for \(label): ", confirm: "Repeat the passphrase: ") {
            return typed
        }
        var error = APNsCredentialError(.missingPassphrase, "A passphrase is needed to encrypt \(label) and none was given.", file: label)
        error.option = optionName
            error.remedy = .passphrase
        throw error
    }
}
