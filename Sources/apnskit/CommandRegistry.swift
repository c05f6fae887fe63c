// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// The list of subcommands, in the order `--help` shows them.
enum CommandRegistry {
    static let all: [ParsableCommand.Type] = common + optional

    private static let common: [ParsableCommand.Type] = [
        Keygen.self,
        CSR.self,
        ImportCer.self,
        P12.self,
        Key.self,
        Combine.self,
        Prepare.self,
        InspectCommand.self,
        CheckCommand.self,
        MockCommand.self,
        Verify.self,
        TrustReport.self,
        Push.self,
        Feedback.self,
        ChannelsCommand.self,
        TokenCommand.self,
        LintCommand.self,
    ]

    /// Commands of optional traits (Package.swift): `outbox` needs postgres-nio.
    #if Outbox
    private static let optional: [ParsableCommand.Type] = [OutboxCommand.self]
    #else
    private static let optional: [ParsableCommand.Type] = []
    #endif
}
