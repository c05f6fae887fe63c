// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `apnskit p12 split|create`.
struct P12: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "p12",
        abstract: "Split a .p12 into PEM files, or create one.",
        subcommands: [P12Split.self, P12Create.self]
    )
}
