// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if Outbox
import APNsOutbox
import APNsProtocol
import APNsSender
import CLIFormats
import ArgumentParser
import Foundation
import Synchronized

/// `apnskit outbox enqueue --tokens FILE`: one outbox row per token line, with `push`'s
/// payload and header options. Lines are read and checked as `push` reads them (the same
/// feed): a line `push` would not send is named and not inserted.
struct OutboxEnqueue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue",
        abstract: "Insert one outbox row per token of a file (the payload and headers as for push).",
        discussion: """
        --tokens reads one token per line, optionally followed by a JSON payload for that token, as push does; \
        lines push would refuse are named on stderr and not inserted. Rows are inserted \(OutboxEnqueue.chunk) per statement; \
        each statement commits on its own, so an interrupted run has inserted whole chunks (the summary says how many rows). \
        Without --topic, a row's topic is left to the worker (its certificate's bundle id). \
        Exit codes: 0 every line inserted, 1 some lines refused, 2 usage, 3 unreadable token file or no outbox table, 4 the database cannot be reached.
        """
    )

    /// Rows per INSERT.
    static let chunk = 5_000

    @OptionGroup var database: PostgresOptions
    @Option(help: ArgumentHelp("A file with one token per line (optionally followed by a JSON payload); - for stdin.", valueName: "FILE"))
    var tokens: String
    @OptionGroup var content: PayloadOptions
    @Option(name: .customLong("not-before"), help: ArgumentHelp("Send no sooner than this time (ISO 8601, e.g. 2026-11-20T10:00:00Z).", valueName: "TIME"))
    var notBefore: String?

    func validate() throws {
        if tokens == "-" && content.payload == "-" { throw ValidationError("--tokens and --payload cannot both read stdin.") }
        if let notBefore, RegistrationTime.parse(notBefore) == nil {
            throw ValidationError("--not-before '\(notBefore)' is not an ISO 8601 date and time such as 2026-11-20T10:00:00Z.")
        }
    }

    func run() async throws {
        let template = try content.template(bundleID: nil)
        if let problem = template.localProblem() { throw ValidationError("Cannot enqueue this notification: \(problem).") }
        let reader: LineReader
        do { reader = try LineReader(path: tokens) } catch {
            throw CommandFailure(message: "Cannot read the token file: \(error) Check --tokens.", status: ExitStatus.input)
        }
        let refused = Locked(0)
        let feed = PushFeed(reader: reader, template: template, check: { $0.localProblem() }, onInvalid: { _, token, reason, _ in
            refused.withLock { $0 += 1 }
            Output.note("apnskit: not enqueued\(token.isEmpty ? "" : " (\(token.prefix(80)))"): \(reason)")
        })
        let notBefore = self.notBefore.flatMap(RegistrationTime.parse)
        let interruption = Interruption.install()
        interruption.onSignal { _ in feed.stop() }
        let start = Date()
        let inserted = try await database.withStore { store in
            try await store.requireCurrentSchema()
            var inserted = 0
            var entries: [APNsOutboxEntry] = []
            entries.reserveCapacity(Self.chunk)
            while let (_, notification) = feed.next() {
                entries.append(APNsOutboxEntry(token: notification.token.hex, topic: notification.topic, pushType: notification.pushType ?? .alert,
                                               priority: notification.priority, expiration: notification.expiration,
                                               collapseID: notification.collapseID, payload: notification.payload, notBefore: notBefore))
                if entries.count == Self.chunk {
                    inserted += try await store.enqueue(entries).count
                    entries.removeAll(keepingCapacity: true)
                }
            }
            inserted += try await store.enqueue(entries).count
            return inserted
        }
        let seconds = Date().timeIntervalSince(start)
        let refusedLines = refused.withLock { $0 }
        Output.line("outbox: enqueued \(inserted) row\(inserted == 1 ? "" : "s") in \(String(format: "%.1f", seconds)) s; \(refusedLines) line\(refusedLines == 1 ? "" : "s") refused.")
        if let readError = feed.readError {
            throw CommandFailure(message: "Reading \(tokens) failed after \(inserted) rows were enqueued: \(readError)", status: ExitStatus.input)
        }
        if let interrupted = interruption.exitStatus {
            Output.note("apnskit: interrupted by \(interruption.signalName): the \(inserted) rows above are enqueued, the rest of \(tokens) is not.")
            throw ExitCode(interrupted)
        }
        if refusedLines > 0 { throw ExitCode(ExitStatus.problem) }
    }
}
#endif
