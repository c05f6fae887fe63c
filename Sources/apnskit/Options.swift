// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import ArgumentParser

/// Flags every file-writing command shares.
struct CommonOptions: ParsableArguments {
    @Flag(name: .long, help: "Replace output files that already exist.")
    var force = false

    @Flag(name: .long, help: "On errors, also print OpenSSL's error queue.")
    var verbose = false

    /// Applies process-wide settings; call first in `run()`.
    func apply() { Output.verbose = verbose }
}

/// `--passin SRC`: how to get the passphrase of an encrypted input.
struct PassinOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Passphrase of encrypted inputs: env:VAR, file:PATH, fd:N, stdin, pass:TEXT or empty. Without it apnskit asks on a terminal, or fails.",
        valueName: "SRC"))
    var passin: String?

    func supplier() throws -> PassphraseSupplier {
        PassphraseSupplier(source: try PassphraseSources.parse(passin, option: "--passin"), optionName: "--passin", prompt: TerminalPrompt.read)
    }
}

enum PassphraseSources {
    /// Parses a passphrase source and warns about `pass:`, which other users can see in `ps`.
    static func parse(_ text: String?, option: String) throws -> PassphraseSource? {
        guard let text else { return nil }
        let source = try PassphraseSource(parsing: text)
        if source.isVisibleToOtherProcesses {
            Output.warning("\(option) pass:... puts the passphrase on the command line, where other processes can read it; prefer env:VAR or file:PATH.")
        }
        return source
    }
}

/// The ways users spell key types, mapped to the library's.
extension PrivateKey.Kind: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument.lowercased() {
        case "rsa2048", "rsa-2048", "rsa": self = .rsa2048
        case "rsa4096", "rsa-4096": self = .rsa4096
        case "ec256", "ec-256", "ec", "p256", "p-256", "prime256v1": self = .ec256
        default: return nil
        }
    }

    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
