import Foundation

/// Hands out a passphrase only when an input turns out to be encrypted.
///
/// Asking lazily matters: an unencrypted key must never make a CI job block on a prompt, and
/// a `stdin`/`fd:` source can be read only once, so the first answer is kept for the next
/// input of the same command. With no source and no terminal it fails with a message that
/// names the file and the `--passin` forms, instead of hanging.
public final class PassphraseSupplier {
    private let source: PassphraseSource?
    private let optionName: String
    private let allowPrompt: Bool
    private var cached: Passphrase?

    /// - Parameters:
    ///   - source: what the user gave, or nil.
    ///   - optionName: the flag to mention in messages (`--passin`).
    ///   - allowPrompt: prompt on the terminal when no source is given and stdin is a TTY.
    public init(source: PassphraseSource?, optionName: String = "--passin", allowPrompt: Bool = true) {
        self.source = source
        self.optionName = optionName
        self.allowPrompt = allowPrompt
    }

    /// A supplier that never has a passphrase: inputs must be unencrypted.
    public static var none: PassphraseSupplier { PassphraseSupplier(source: nil, allowPrompt: false) }

    public var hasSource: Bool { source != nil }

    /// The passphrase for `label` (a file name), reading or prompting on first use.
    public func passphrase(for label: String) throws -> Passphrase {
        if let cached { return cached }
        let value: Passphrase
        if let source {
            value = try source.read()
        } else if allowPrompt, isatty(STDIN_FILENO) == 1, let typed = TerminalPrompt.read(prompt: "Passphrase for \(label): ") {
            value = typed
        } else {
            throw CredentialError(.missingPassphrase, "\(label) is encrypted and no passphrase was given; pass \(optionName) env:VAR, file:PATH, fd:N, stdin or pass:TEXT.")
        }
        cached = value
        return value
    }
}

extension PassphraseSupplier {
    /// A passphrase to encrypt a new file with: from the source if given, else asked twice on
    /// the terminal; with neither, a clear error naming `optionName`.
    public static func newPassphrase(source: PassphraseSource?, optionName: String = "--passout", for label: String) throws -> Passphrase {
        if let source { return try source.read() }
        if isatty(STDIN_FILENO) == 1,
           let typed = TerminalPrompt.read(prompt: "New passphrase for \(label): ", confirm: "Repeat the passphrase: ") {
            return typed
        }
        throw CredentialError(.missingPassphrase, "A passphrase is needed to encrypt \(label); pass \(optionName) env:VAR, file:PATH, fd:N, stdin or pass:TEXT.")
    }
}
