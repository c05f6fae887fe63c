// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if Outbox
import APNsOutbox
import ArgumentParser
import Foundation

/// `apnskit outbox init`: creates the outbox table, or migrates it to this apnskit's schema.
struct OutboxInit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the outbox table (apns_outbox), or migrate it to this version's schema.",
        discussion: "Safe to run again and from several machines at once: each migration is applied once. Exit codes: 0 done, 3 the table is newer than this apnskit, 4 the database cannot be reached."
    )

    @OptionGroup var database: PostgresOptions

    func run() async throws {
        let (from, to) = try await database.withStore { try await $0.migrate() }
        Output.line(from == to ? "outbox: the table is at schema version \(to); nothing to do."
                               : "outbox: schema version \(from) -> \(to); apns_outbox is ready.")
    }
}

/// `apnskit outbox status`: rows by state and the oldest queued row's age.
struct OutboxStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Count the outbox's rows by state, and say how long the oldest queued row has waited.",
        discussion: "--format json prints one object; --format prometheus the Prometheus text format (for node_exporter's textfile collector or a scrape wrapper). Exit codes: 0, 3 no outbox table, 4 the database cannot be reached."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, prometheus
    }

    @OptionGroup var database: PostgresOptions
    @Option(help: "text, json or prometheus.") var format: Format = .text

    func run() async throws {
        let status = try await database.withStore { store in
            try await store.requireCurrentSchema()
            return try await store.status()
        }
        switch format {
        case .text: Output.text(Self.text(status))
        case .json: try JSONOutput.print(Report(status))
        case .prometheus: Output.text(Self.prometheus(status))
        }
    }

    static func text(_ status: APNsOutboxStatus) -> String {
        var text = ""
        for state in APNsOutboxState.allCases {
            text += "\(state.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(status.count(state))\n"
        }
        text += "total      \(status.total)\n"
        text += "possibly duplicated: \(status.possiblyDuplicated)\n"
        text += "oldest queued: \(status.count(.queued) == 0 ? "none queued" : String(format: "%.1f s ago", status.oldestQueuedAge))\n"
        return text
    }

    /// The `--format json` object (docs/outbox.md, "Watching it").
    struct Report: Encodable {
        var counts: [String: Int]
        var total: Int
        var pending: Int
        var possiblyDuplicated: Int
        var oldestQueuedSeconds: Double

        init(_ status: APNsOutboxStatus) {
            counts = Dictionary(uniqueKeysWithValues: APNsOutboxState.allCases.map { ($0.rawValue, status.count($0)) })
            total = status.total
            pending = status.pending
            possiblyDuplicated = status.possiblyDuplicated
            oldestQueuedSeconds = (status.oldestQueuedAge * 1000).rounded() / 1000
        }

        enum CodingKeys: String, CodingKey {
            case counts, total, pending
            case possiblyDuplicated = "possibly_duplicated"
            case oldestQueuedSeconds = "oldest_queued_seconds"
        }
    }

    static func prometheus(_ status: APNsOutboxStatus) -> String {
        CheckPrometheus.family("apns_outbox_rows", "Rows of the apns_outbox table by state.",
                               APNsOutboxState.allCases.map { (CheckPrometheus.labelSet([("state", $0.rawValue)]), String(status.count($0))) })
            + CheckPrometheus.family("apns_outbox_possibly_duplicated_rows", "Rows flagged possibly_duplicated (APNs may have had them twice), in any state.",
                                     [("", String(status.possiblyDuplicated))])
            + CheckPrometheus.family("apns_outbox_oldest_queued_seconds", "Seconds since the oldest queued row was inserted (0 when none is queued).",
                                     [("", String(format: "%.3f", status.oldestQueuedAge))])
    }
}
#endif
