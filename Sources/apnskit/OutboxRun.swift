// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if Outbox
import APNsCredentials
import APNsOutbox
import APNsProtocol
import APNsSender
import APNsTransport
import ArgumentParser
import Foundation

/// `apnskit outbox run`: one worker of the fleet. Start as many as the gateway and the
/// database carry, on as many machines as you like (docs/outbox.md).
struct OutboxRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Send the outbox's rows until stopped (or, with --until-empty, until none is left).",
        discussion: """
        IDENTITY, --auth-key and the gateway options are push's. The worker claims --batch-size rows at a time \
        (FOR UPDATE SKIP LOCKED), leased for --lease seconds and renewed while they are in flight, sends them and \
        writes their results back in one statement per batch. It wakes on LISTEN apns_outbox and polls every \
        --poll-interval seconds. Rows of a worker that died go to another once their lease runs out, flagged \
        possibly_duplicated (sent again with the same apns-id and apns-collapse-id). SIGINT/SIGTERM: stop claiming, \
        finish and write what is in flight, put back what was not sent, print the summary, exit 130/143; a second \
        signal gives in-flight requests up (they are written back as retried, possibly duplicated). \
        Exit codes: 0 --until-empty found no row left, 2 usage, 3 unreadable credentials or no outbox table, \
        4 the database cannot be reached at the start, 130/143 stopped by a signal.
        """
    )

    @OptionGroup var database: PostgresOptions
    @OptionGroup var credentials: CredentialOptions
    @OptionGroup var gateway: GatewayOptions

    @Option(help: "Connections to the gateway.") var connections = 1
    @Option(name: .customLong("event-loops"), help: "Threads the connections run on (at most one per core).") var eventLoops = 1
    @Option(help: "Requests in flight per connection.") var concurrency = 100

    @Option(name: .customLong("batch-size"), help: "Rows per claim and per result statement (1 to 10000).") var batchSize = 500
    @Option(name: .customLong("batches-in-flight"), help: "Batches sent at once (1 to 64): the next is claimed while these are sent.")
    var batchesInFlight = 4
    @Option(help: "Seconds a claim holds its rows unless renewed; a dead worker's rows go to another after this.") var lease: Double = 30
    @Option(name: .customLong("poll-interval"), help: "Seconds between looks for due rows without a notification.") var pollInterval: Double = 1
    @Option(name: .customLong("max-attempts"), help: "Claims per row; after the last, a row that may have reached APNs ends failed.")
    var maxAttempts = 10
    @Option(name: .customLong("retry-delay"), help: "Seconds a row waits before it is sent again.") var retryDelay: Double = 5
    @Flag(name: .customLong("no-row-collapse-id"), help: "Send rows without a collapse_id with none (by default they carry their apns-id as one).")
    var noRowCollapseID = false
    @Flag(name: .customLong("until-empty"), help: "Stop once no row is queued or leased (a batch job, a benchmark).") var untilEmpty = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        try credentials.validate(for: .provider)
        try gateway.validate(for: .provider)
        try PoolFlags.validate(connections: connections, eventLoops: eventLoops, concurrency: concurrency)
        if batchSize < 1 || batchSize > 10_000 { throw ValidationError("--batch-size must be between 1 and 10000.") }
        if batchesInFlight < 1 || batchesInFlight > 64 { throw ValidationError("--batches-in-flight must be between 1 and 64.") }
        if !(lease >= 1 && lease <= 86_400) { throw ValidationError("--lease must be between 1 and 86400 seconds.") }
        if !(pollInterval >= 0.01 && pollInterval <= 3_600) { throw ValidationError("--poll-interval must be between 0.01 and 3600 seconds.") }
        if maxAttempts < 1 || maxAttempts > 1_000 { throw ValidationError("--max-attempts must be between 1 and 1000.") }
        if !(retryDelay >= 0 && retryDelay <= 86_400) { throw ValidationError("--retry-delay must be between 0 and 86400 seconds.") }
    }

    func run() async throws {
        output.apply()
        let authentication: APNsClient.Authentication
        switch try credentials.load() {
        case .certificate(let identity): authentication = .certificate(identity)
        case .token(let signer, _): authentication = .token(signer)
        }
        let trust = try gateway.trust()
        let timeout = gateway.timeout(for: .provider)
        // The gateway down for minutes must not leave the worker waiting a minute more once it is
        // back: the outage back-off stops at 10 s (the rows wait in the table meanwhile).
        let policy = APNsRetryPolicy(maximumOutageDelay: .seconds(10))
        let client = APNsClient(endpoint: gateway.endpoint(for: .provider), trust: trust, authentication: authentication,
                                connections: connections, eventLoops: eventLoops, concurrency: concurrency, policy: policy,
                                connectTimeout: timeout, requestTimeout: timeout)
        var settings = APNsOutboxWorker.Configuration()
        settings.batchSize = batchSize
        settings.batchesInFlight = batchesInFlight
        settings.lease = .milliseconds(Int64(lease * 1000))
        settings.pollInterval = .milliseconds(Int64(pollInterval * 1000))
        settings.maximumAttempts = maxAttempts
        settings.retryDelay = .milliseconds(Int64(retryDelay * 1000))
        settings.rowCollapseID = !noRowCollapseID
        let interruption = Interruption.install()
        let progress = PushProgress()
        let start = Date()
        let untilEmpty = self.untilEmpty
        let pollInterval = settings.pollInterval
        let configuration = settings
        let totals = try await database.withStore(connections: batchesInFlight + 4) { store in
            try await store.requireCurrentSchema()
            let worker = APNsOutboxWorker(store: store, client: client, configuration: configuration)
            interruption.onSignal { _ in worker.stop() }
            interruption.onSecondSignal { Task { await client.close(cancellingInFlight: true) } }
            progress.start { Self.progressLine(worker.totals, since: start) }
            let watcher = untilEmpty ? Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: pollInterval)
                    if let pending = try? await worker.hasPendingRows(), !pending {
                        worker.stop()
                        return
                    }
                }
            } : nil
            try await worker.run()
            watcher?.cancel()
            return worker.totals
        }
        await client.close()
        progress.stop()
        let report = Report(totals: totals, seconds: Date().timeIntervalSince(start))
        switch output.format {
        case .json: try JSONOutput.print(report)
        case .text: Output.line(report.text)
        }
        if let interrupted = interruption.exitStatus {
            Output.note("apnskit: stopped by \(interruption.signalName): nothing more claimed; every row taken was sent and written back, or put back unsent.")
            throw ExitCode(interrupted)
        }
    }

    static func progressLine(_ totals: APNsOutboxWorker.Totals, since start: Date) -> String {
        let done = totals.delivered + totals.rejected + totals.failed
        let rate = Double(done) / max(0.001, Date().timeIntervalSince(start))
        return "\(done) done (\(totals.delivered) delivered, \(totals.rejected) rejected, \(totals.failed) failed), \(totals.retried + totals.released) put back, \(Int(rate))/s"
    }

    /// The summary (docs/outbox.md, "outbox run").
    struct Report: Encodable {
        var claimed, delivered, rejected, failed, retried, released, possiblyDuplicated, reclaimed, leaseLost, databaseErrors: Int
        var seconds: Double
        var rowsPerSecond: Double

        init(totals: APNsOutboxWorker.Totals, seconds: Double) {
            claimed = totals.claimed
            delivered = totals.delivered
            rejected = totals.rejected
            failed = totals.failed
            retried = totals.retried
            released = totals.released
            possiblyDuplicated = totals.possiblyDuplicated
            reclaimed = totals.reclaimed
            leaseLost = totals.leaseLost
            databaseErrors = totals.databaseErrors
            self.seconds = (seconds * 1000).rounded() / 1000
            rowsPerSecond = seconds > 0 ? (Double(delivered + rejected + failed) / seconds).rounded() : 0
        }

        var text: String {
            "outbox run: \(delivered) delivered, \(rejected) rejected, \(failed) failed; \(retried) put back to retry, \(released) put back unsent; "
                + "\(possiblyDuplicated) possibly duplicated, \(reclaimed) reclaimed from expired leases, \(leaseLost) results not written (lease lost), "
                + "\(databaseErrors) database errors; \(String(format: "%.1f", seconds)) s, \(Int(rowsPerSecond)) rows/s."
        }

        enum CodingKeys: String, CodingKey {
            case claimed, delivered, rejected, failed, retried, released, reclaimed, seconds
            case possiblyDuplicated = "possibly_duplicated"
            case leaseLost = "lease_lost"
            case databaseErrors = "database_errors"
            case rowsPerSecond = "rows_per_second"
        }
    }
}
#endif
