// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import ArgumentParser

/// `--identity N|NAME`: which key + certificate pair to use from an input that holds several
/// (a keystore-like .p12 or PEM). Every command that loads a client identity has it, so the
/// hint in the "holds N identities" error is always one the command takes.
struct IdentityChoiceOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Which identity of an input that holds several key + certificate pairs: its number (as inspect lists them) or its friendlyName or common name.",
        valueName: "N|NAME"))
    var identity: String?

    var selector: IdentitySelector? { identity.map(IdentitySelector.init(parsing:)) }
}
