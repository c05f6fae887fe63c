// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if Outbox
import APNsProtocol
import APNsSender
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronized

/// Drains the outbox table through an `APNsClient`, beside any number of other workers on
/// any number of machines (docs/outbox.md). It claims rows in batches (`FOR UPDATE SKIP
/// LOCKED`, leased for `lease`, the lease renewed while they are in flight), sends them, and
/// writes each batch's outcomes back in one statement that also ends the lease. It wakes on
/// `LISTEN apns_outbox` and polls as a fallback; it reclaims the rows of workers whose lease
/// ran out, flagged possibly duplicated. A Service: a `ServiceGroup`'s graceful shutdown (or
/// `stop()`) stops claiming, lets what is in flight finish and be written, and returns.
///
/// The `PostgresClient` under `store` must be running (`client.run()`, or a service of the
/// same group); so is nothing else: the worker never closes the `APNsClient` it was given.
public final class APNsOutboxWorker: Service, Sendable {
    public struct Configuration: Sendable {
        /// Rows per claim (and per result statement).
        public var batchSize = 500
        /// Batches sent at once: while some are sent, the next is claimed.
        public var batchesInFlight = 4
        /// How long a claim holds its rows without a renewal; a worker that died gives them up
        /// after this long. Renewed every third of it.
        public var lease: Duration = .seconds(30)
        /// How often an idle worker looks for due rows without a notification (rows whose
        /// `not_before` came, notifications lost while reconnecting).
        public var pollInterval: Duration = .seconds(1)
        /// Claims a row gets; after the last, a row that may have reached APNs ends `failed`.
        public var maximumAttempts = 10
        /// How long a row waits before it is sent again.
        public var retryDelay: Duration = .seconds(5)
        /// Whether a row without a collapse id of its own gets its `apns-id` as one, so that a
        /// copy sent again after a crash replaces the first on the device. A row opts out alone
        /// with an empty `collapse_id`.
        public var rowCollapseID = true

        public init() {}
    }

    /// What the worker did so far.
    public struct Totals: Sendable, Equatable {
        public var claimed = 0
        public var delivered = 0
        public var rejected = 0
        public var failed = 0
        /// Put back to be sent again (retryable answers, attempts that may have reached APNs).
        public var retried = 0
        /// Put back untried (the gateway unreachable, stopping).
        public var released = 0
        public var possiblyDuplicated = 0
        /// Rows reclaimed from expired leases (by this worker's sweeps).
        public var reclaimed = 0
        /// Outcomes not written because the lease ran out first (another worker has the row).
        public var leaseLost = 0
        /// Database errors seen (each retried).
        public var databaseErrors = 0
        public init() {}
    }

    public let store: APNsOutboxStore
    public let client: APNsClient
    public let configuration: Configuration
    /// This worker's lease owner id (the `lease_owner` column of the rows it holds).
    public let id = UUID()
    private let logger: Logger
    private let stopping = Latch()
    private let wake = WakeSignal()
    private let counters = Locked(Totals())
    /// The rows of the batches in flight: the heartbeat renews these leases and no others.
    private let held = Locked<Set<Int64>>([])
    /// When the gateway could not be reached, claims pause until this time.
    private let pause = Locked<(until: ContinuousClock.Instant?, delay: Duration)>((nil, .zero))

    public init(store: APNsOutboxStore, client: APNsClient, configuration: Configuration = Configuration(), logger: Logger? = nil) {
        self.store = store
        self.client = client
        self.configuration = configuration
        self.logger = logger ?? Logger(label: "apnskit.outbox", factory: { _ in SwiftLogNoOpLogHandler() })
    }

    public var totals: Totals { counters.withLock { $0 } }

    /// Runs one statement of the worker within its limit, the lease and at least 10 s; past it
    /// the statement counts as a database error (and is retried). A statement past it is abandoned, not waited
    /// for (`withDatabaseDeadline` says why).
    private func statement<Value: Sendable>(_ call: @escaping @Sendable (APNsOutboxStore) async throws -> Value) async throws -> Value {
        try await withDatabaseDeadline(max(configuration.lease, .seconds(10))) { [store] in try await call(store) }
    }

    /// Whether rows are queued or leased (`APNsOutboxStore.hasPendingRows`), within the worker's
    /// statement limit: `--until-empty` asks it, and a statement that never ends must not keep
    /// a drained outbox's workers running.
    public func hasPendingRows() async throws -> Bool {
        try await statement { store in try await store.hasPendingRows() }
    }

    /// Stops claiming; `run()` returns once the batches in flight are sent and written.
    public func stop() {
        stopping.open()
        wake.signal()
    }

    public func run() async throws {
        try await store.requireCurrentSchema()
        await withGracefulShutdownHandler {
            await self.work()
        } onGracefulShutdown: {
            self.stop()
        }
    }

    private func work() async {
        await withTaskGroup(of: Void.self) { helpers in
            helpers.addTask { await self.listen() }
            helpers.addTask { await self.heartbeat() }
            await claimLoop()
            helpers.cancelAll()
        }
    }

    private var isStopping: Bool { stopping.isOpen || Task.isCancelled }

    private func claimLoop() async {
        await withTaskGroup(of: Void.self) { batches in
            var inFlight = 0
            var failures = 0
            while !isStopping {
                if inFlight >= configuration.batchesInFlight {
                    await batches.next()
                    inFlight -= 1
                    continue
                }
                if let until = pause.withLock({ $0.until }), until > .now {
                    await wake.wait(timeout: until - .now)
                    continue
                }
                let rows: [APNsOutboxRow]
                do {
                    rows = try await statement { [id, configuration] store in
                        try await store.claim(owner: id, limit: configuration.batchSize, lease: configuration.lease)
                    }
                    failures = 0
                } catch {
                    failures += 1
                    counters.withLock { $0.databaseErrors += 1 }
                    logger.warning("outbox claim failed", metadata: ["error": "\(String(reflecting: error))"])
                    await wake.wait(timeout: Self.backoff(failures))
                    continue
                }
                if rows.isEmpty {
                    if inFlight > 0 {
                        await batches.next()
                        inFlight -= 1
                    } else {
                        await wake.wait(timeout: configuration.pollInterval)
                    }
                    continue
                }
                counters.withLock { $0.claimed += rows.count }
                held.withLock { $0.formUnion(rows.map(\.id)) }
                inFlight += 1
                batches.addTask { await self.process(rows) }
            }
            await batches.waitForAll()
        }
    }

    /// 100 ms doubling to 5 s: how long to wait after `failures` failed database calls in a row.
    static func backoff(_ failures: Int) -> Duration {
        .milliseconds(min(5_000, 100 << min(failures - 1, 6)))
    }

    /// Sends one claimed batch and writes its outcomes.
    private func process(_ rows: [APNsOutboxRow]) async {
        var outcomes: [APNsOutboxOutcome] = []
        outcomes.reserveCapacity(rows.count)
        var sendRows: [APNsOutboxRow] = []
        var notifications: [APNsNotification] = []
        for row in rows {
            if row.attempts > configuration.maximumAttempts {
                // Claimed that often without an outcome: its workers kept dying with it.
                outcomes.append(APNsOutboxOutcome(id: row.id, apnsID: row.apnsID, disposition: APNsOutboxDisposition(
                    action: .finish(.failed), possiblyDuplicated: row.possiblyDuplicated,
                    detail: "Claimed \(row.attempts - 1) times without an outcome (its workers stopped each time); not sent again.")))
                continue
            }
            switch row.notification(rowCollapseID: configuration.rowCollapseID) {
            case .success(let notification):
                sendRows.append(row)
                notifications.append(notification)
            case .failure(let refused):
                outcomes.append(APNsOutboxOutcome(id: row.id, apnsID: row.apnsID, disposition: .refused(refused.reason, refused.detail)))
            }
        }
        if !notifications.isEmpty {
            let results = Locked<[APNsSendResult]>([])
            _ = await client.send(feed: APNsNotificationList(notifications)) { result in results.withLock { $0.append(result) } }
            var untried = 0
            for result in results.withLock({ $0 }) {
                let row = sendRows[result.index]
                let disposition = APNsOutboxDisposition.of(result, attempt: row.attempts, maximumAttempts: configuration.maximumAttempts,
                                                            retryDelay: configuration.retryDelay)
                if case .release = disposition.action, case .failed = result.outcome { untried += 1 }
                outcomes.append(APNsOutboxOutcome(id: row.id, apnsID: row.apnsID, disposition: disposition))
            }
            notePause(gatewayDown: untried == notifications.count)
        }
        await write(outcomes)
        held.withLock { $0.subtract(rows.map(\.id)) }
    }

    /// The gateway could not be reached for a whole batch: claims wait 1 s, doubling to 10 s,
    /// instead of cycling the queue through failed connects. The first batch that goes out ends it.
    private func notePause(gatewayDown: Bool) {
        pause.withLock { pause in
            if gatewayDown {
                pause.delay = pause.delay == .zero ? .seconds(1) : min(.seconds(10), pause.delay * 2)
                pause.until = .now + pause.delay
            } else {
                pause = (nil, .zero)
            }
        }
    }

    /// Writes outcomes in one statement, retrying a database that went away, for as long as
    /// the lease lasts: after that the rows are another worker's (and flagged possibly
    /// duplicated), so the outcomes no longer belong here.
    private func write(_ outcomes: [APNsOutboxOutcome]) async {
        let deadline = ContinuousClock.now + configuration.lease
        var failures = 0
        while true {
            do {
                // No longer than the lease: past it the rows are another worker's.
                let written = try await withDatabaseDeadline(max(.seconds(1), deadline - ContinuousClock.now)) { [store, id] in
                    try await store.finish(owner: id, outcomes)
                }
                count(outcomes, lost: outcomes.count - written)
                return
            } catch {
                failures += 1
                counters.withLock { $0.databaseErrors += 1 }
                logger.warning("outbox results not written yet", metadata: ["error": "\(String(reflecting: error))"])
                if ContinuousClock.now >= deadline {
                    count(outcomes, lost: outcomes.count)
                    return
                }
                try? await Task.sleep(for: Self.backoff(failures))
            }
        }
    }

    private func count(_ outcomes: [APNsOutboxOutcome], lost: Int) {
        counters.withLock { totals in
            totals.leaseLost += lost
            for outcome in outcomes {
                if outcome.disposition.possiblyDuplicated { totals.possiblyDuplicated += 1 }
                switch outcome.disposition.action {
                case .finish(.delivered): totals.delivered += 1
                case .finish(.rejected): totals.rejected += 1
                case .finish: totals.failed += 1
                case .retry: totals.retried += 1
                case .release: totals.released += 1
                }
            }
        }
    }

    /// LISTEN on the outbox channel: every insert wakes the claim loop. A lost connection is
    /// opened again; polling covers the gap.
    private func listen() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                try await store.client.withConnection { connection in
                    try await connection.listen(on: APNsOutboxSchema.channel) { notifications in
                        failures = 0
                        self.wake.signal()
                        for try await _ in notifications { self.wake.signal() }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                failures += 1
            }
            try? await Task.sleep(for: Self.backoff(max(1, failures)))
        }
    }

    /// Renews this worker's leases and reclaims expired ones, every third of the lease.
    private func heartbeat() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: configuration.lease / 3)
            if Task.isCancelled { return }
            do {
                let ids = Array(held.withLock { $0 })
                try await statement { [id, configuration] store in
                    try await store.extendLeases(owner: id, ids: ids, lease: configuration.lease)
                }
                if !isStopping {
                    let reclaimed = try await statement { store in try await store.reclaimExpiredLeases() }
                    if reclaimed > 0 { counters.withLock { $0.reclaimed += reclaimed } }
                }
            } catch {
                counters.withLock { $0.databaseErrors += 1 }
            }
        }
    }
}

/// Wakes a waiting claim loop: a notification, a stop, or the timeout, whichever comes first.
/// A signal with no one waiting is kept for the next wait.
final class WakeSignal: Sendable {
    private let state = Locked<(pending: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = true
            return nil
        }
        waiter?.resume()
    }

    func wait(timeout: Duration) async {
        let timer = Task { [weak self] in
            if (try? await Task.sleep(for: timeout)) != nil { self?.signal() }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.pending {
                    state.pending = false
                    return true
                }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
        timer.cancel()
    }
}
#endif
