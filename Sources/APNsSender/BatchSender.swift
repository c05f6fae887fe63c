// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation
import Logging
import Metrics
import Synchronized

/// Sends notifications over a pool of provider-API connections and guarantees that each one
/// ends with exactly one `APNsSendResult`.
///
/// Concurrency is bounded (`connections` x `concurrency` requests in flight, nghttp2 holding
/// back whatever exceeds the server's MAX_CONCURRENT_STREAMS), so memory stays flat however
/// large the feed. Retryable answers (429, 500, 503) and requests the server did not process
/// are retried with back-off; a request in flight on a connection that died is resent on a new
/// connection and marked `possiblyDuplicated`; permanent reasons are final at once.
package final class BatchSender: Sendable {
    private let pool: ConnectionPool
    /// A batch runs as one `BatchRun` per event loop its connections live on (`SharedFeed`).
    private let loopCount: Int
    private let concurrency: Int
    private let policy: APNsRetryPolicy
    private let tokens: ProviderTokenCache?
    private let observer: SenderObserver
    private let defaultBundleID: String?
    /// Token diagnosis (`APNsClient.Configuration.tokenDiagnosis`), nil when off.
    private let diagnoser: TokenDiagnoser?
    /// Single sends wait here for a slot of the window, and one long-lived run sends them.
    private let singles = SingleSendQueue()
    private let singleRun: BatchRun
    private let lifecycle = Locked(Lifecycle())
    /// The tasks every run starts (connects, back-offs): `close` ends them and waits.
    private let tasks = RunTasks()
    /// Tasks of the runs still running (tests: none once `close()` returned).
    var runningTasks: Int { tasks.count }

    /// What `close` needs: whether it happened, the batches running, who waits for them.
    private struct Lifecycle {
        var closed = false
        /// Closed by a `ServiceGroup`'s graceful shutdown (`APNsClient.run()`), not by a call
        /// of the app's: a send after that means the group's order is wrong.
        var closedByServiceGroup = false
        /// The warning about that order was logged (once per client).
        var warnedOfGroupOrder = false
        var batches: [ObjectIdentifier: BatchRun] = [:]
        /// The result channels of `send(contentsOf:onResult:)` batches, released when closing.
        var channels: [ObjectIdentifier: ResultChannel] = [:]
        var singleRunFinished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var idle: Bool { batches.isEmpty && singleRunFinished }
    }

    /// `logger` receives the sender's logs (none when nil: a library is quiet by default);
    /// `environment` labels its metrics (`sandbox`, `production`, or `custom` for any other
    /// endpoint); `metricsFactory` defaults to the bootstrapped `MetricsSystem.factory`. See
    /// `SenderObserver` for the metrics and log levels. Notifications without a topic get
    /// `defaultBundleID` plus their push type's suffix, and background ones priority 5
    /// (`APNsNotification.withDefaults`).
    package init(connector: any ProviderConnector, connections: Int = 1, concurrency: Int = 100,
                policy: APNsRetryPolicy = APNsRetryPolicy(), tokens: ProviderTokenCache? = nil,
                logger: Logger? = nil, environment: String = "custom", metricsFactory: MetricsFactory? = nil,
                defaultBundleID: String? = nil, diagnoser: TokenDiagnoser? = nil) {
        self.defaultBundleID = defaultBundleID
        self.diagnoser = diagnoser
        observer = SenderObserver(logger: logger, environment: environment, factory: metricsFactory)
        pool = ConnectionPool(connector: connector, size: connections, policy: policy, observer: observer)
        loopCount = max(1, min(connector.loopCount, pool.size))
        self.concurrency = max(1, concurrency)
        self.policy = policy
        self.tokens = tokens
        let singles = self.singles
        singleRun = BatchRun(source: .queue(singles), poolSlots: Array(0..<pool.size), window: self.concurrency, pool: pool, policy: policy,
                             tokens: tokens, observer: observer, defaultBundleID: defaultBundleID, diagnoser: diagnoser, tasks: tasks,
                             onResult: { singles.finish($0) })
        let lifecycle = self.lifecycle
        singleRun.start { _ in Self.update(lifecycle) { $0.singleRunFinished = true } }
    }

    /// Applies `change` to the lifecycle state; once nothing runs any more, wakes the `close`
    /// calls waiting for that.
    private static func update(_ lifecycle: Locked<Lifecycle>, _ change: (inout Lifecycle) -> Void) {
        let waiters: [CheckedContinuation<Void, Never>] = lifecycle.withLock { state in
            change(&state)
            guard state.idle else { return [] }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Sends everything `feed` yields; `onResult` is called once per notification, in turn, on
    /// a thread of the batch's own (never the event loop's): a slow `onResult` slows this batch
    /// (at most `ResultDispatcher.capacity` results wait for it), not other connections. The
    /// batch has a window of its own (`concurrency` per connection) beside the single sends'.
    /// Cancelling the calling task stops the batch: what was not written ends
    /// `.cancelled(written: false)`, what was in flight `.cancelled(written: true)`.
    package func send(_ feed: some APNsNotificationFeed, onResult: @escaping @Sendable (APNsSendResult) -> Void) async -> APNsBatchSummary {
        await send(feed, stopSwitch: nil, onResult: onResult)
    }

    /// `send(_:onResult:)`; `stopSwitch` stops the batch on the caller's word (`APNsBatchControl.stop`).
    func send(_ feed: some APNsNotificationFeed, stopSwitch: BatchStopSwitch?,
              onResult: @escaping @Sendable (APNsSendResult) -> Void) async -> APNsBatchSummary {
        if lifecycle.withLock({ $0.closed }) { warnIfServiceGroupOrderIsWrong() }
        let runs = loopCount == 1 ? [BatchRun(feed: feed, poolSlots: Array(0..<pool.size), window: concurrency, pool: pool, policy: policy,
                                              tokens: tokens, observer: observer, defaultBundleID: defaultBundleID, diagnoser: diagnoser,
                                              resultsOnOwnThread: true, tasks: tasks, onResult: onResult)]
                                   : runsPerLoop(feed, onResult: onResult)
        stopSwitch?.attach(runs)
        let keys = runs.map(ObjectIdentifier.init)
        lifecycle.withLock { state in
            for (key, run) in zip(keys, runs) { state.batches[key] = run }
        }
        defer { Self.update(lifecycle) { state in for key in keys { state.batches[key] = nil } } }
        return await withTaskCancellationHandler {
            if runs.count == 1 { return await runs[0].run() }
            return await withTaskGroup(of: APNsBatchSummary.self) { group in
                for run in runs { group.addTask { await run.run() } }
                var summary = APNsBatchSummary()
                for await part in group { summary.add(part) }
                return summary
            }
        } onCancel: {
            for run in runs { run.cancel() }
        }
    }

    /// A batch whose connections live on several event loops: one run per loop, each with that
    /// loop's pool slots (slot `n` is on loop `n % loopCount`), its own lock and its own state
    /// machine, taking notifications from one `SharedFeed` in stretches. The runs share one
    /// result thread, so `onResult` is called one result at a time, as for one run.
    private func runsPerLoop(_ feed: some APNsNotificationFeed, onResult: @escaping @Sendable (APNsSendResult) -> Void) -> [BatchRun] {
        let shared = SharedFeed(feed)
        let results = ResultDispatcher(owners: loopCount, deliver: onResult)
        let runs = (0..<loopCount).map { loop in
            BatchRun(source: .stretch(StretchSource(shared)), poolSlots: Array(stride(from: loop, to: pool.size, by: loopCount)),
                     window: concurrency, pool: pool, policy: policy, tokens: tokens, observer: observer, defaultBundleID: defaultBundleID,
                     diagnoser: diagnoser, sharedResults: (results, loop), tasks: tasks, onResult: onResult)
        }
        results.start { owner, count in runs[owner].delivered(count) }
        shared.start { for run in runs { run.pumpAll() } }
        return runs
    }

    /// Sends one notification once a slot of the window (`concurrency` per connection, shared
    /// by all single sends) is free; concurrent sends from many tasks spread over every
    /// connection. Cancelling the calling task ends it at once: `.cancelled(written: false)`
    /// while it waited for a slot (it is then never sent), `.cancelled(written: true)` if its
    /// request had gone out. After `close()`, fails at once with `APNsSendError.Code.clientClosed`.
    package func send(_ notification: APNsNotification) async -> APNsSendResult {
        let index = singles.reserveIndex()
        // Only a cancelled task can have left an early cancellation behind (its handler ran), and
        // the handler cannot run once `withTaskCancellationHandler` has returned: a send that was
        // never cancelled skips the queue's lock here.
        defer { if Task.isCancelled { singles.forget(index) } }
        let run = singleRun
        let singles = self.singles
        return await withTaskCancellationHandler {
            // Unsafe: resumed exactly once by construction (`SingleSendQueue`).
            await withUnsafeContinuation { continuation in
                switch singles.enqueue(index, notification, continuation) {
                case .queued(let wakeRun): if wakeRun { run.pumpAll() }
                case .cancelled: continuation.resume(returning: Self.unsent(index, notification, .cancelled(written: false)))
                case .closed:
                    self.warnIfServiceGroupOrderIsWrong()
                    continuation.resume(returning: Self.unsent(index, notification, .failed(APNsSendError(.clientClosed, ConnectionPool.closedSentence))))
                }
            }
        } onCancel: {
            run.cancel(index: index)
        }
    }

    static func unsent(_ index: Int, _ notification: APNsNotification, _ outcome: APNsSendResult.Outcome) -> APNsSendResult {
        APNsSendResult(index: index, token: notification.token, apnsIDText: notification.apnsID.map(MessageID.text) ?? APNsNotification.newID(),
                           outcome: outcome, attempts: 0)
    }

    /// Closes the sender for good: sends after this fail at once (`clientClosed`), and no
    /// connection is made again. What waits for a slot ends `.cancelled(written: false)`; what
    /// is in flight gets its answer (or, with `cancellingInFlight`, is given up at once:
    /// `.cancelled(written: true)`). Returns when every send and batch has its results, every
    /// connection is gone and no connect or task of the sender runs any more (a process may
    /// exit right after it). Safe to call more than once.
    /// `byServiceGroup`: the close is a `ServiceGroup`'s graceful shutdown (a later send logs
    /// a warning about the group's order).
    package func close(cancellingInFlight: Bool = false, byServiceGroup: Bool = false) async {
        let (batches, channels): ([BatchRun], [ResultChannel]) = lifecycle.withLock { state in
            if !state.closed { state.closedByServiceGroup = byServiceGroup }
            state.closed = true
            return (Array(state.batches.values), Array(state.channels.values))
        }
        for channel in channels { channel.releaseBackPressure() }
        for run in batches + [singleRun] {
            if cancellingInFlight { run.cancel() } else { run.stop() }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = lifecycle.withLock { state in
                if state.idle { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        // The pool first: it cancels the connects in progress, which the runs' connect tasks
        // wait for; then those tasks end too. After this, nothing of the sender runs.
        await pool.closeAll()
        await tasks.cancelAndWait()
    }

    /// A send refused because the client is closed: when a `ServiceGroup` closed it, the group
    /// shut the client down before a service that still sends through it, whose last sends are
    /// lost (`clientClosed`). Says so once, at warning level, with the fix.
    private func warnIfServiceGroupOrderIsWrong() {
        let warn: Bool = lifecycle.withLock { state in
            guard state.closedByServiceGroup && !state.warnedOfGroupOrder else { return false }
            state.warnedOfGroupOrder = true
            return true
        }
        if warn {
            observer.logger.warning("""
                a send came after the ServiceGroup's graceful shutdown had closed APNsClient: it failed with clientClosed. \
                List the client before the services that send through it (a group shuts down in reverse order).
                """)
        }
    }

    /// Keeps `channel` known while its batch runs, so `close` can release it.
    func track(_ channel: ResultChannel) -> Bool {
        lifecycle.withLock { state in
            state.channels[ObjectIdentifier(channel)] = channel
            return state.closed
        }
    }

    func untrack(_ channel: ResultChannel) {
        _ = lifecycle.withLock { $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// `{"reason":"...","timestamp":...}`; tolerant of a missing or non-JSON body (a proxy's
    /// HTML error page): the reason is then `noReasonGiven`.
    static func parseError(_ body: [UInt8]) -> (reason: APNsReason, timestamp: Date?) {
        guard body.first == UInt8(ascii: "{"), let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            return (noReasonGiven, nil)
        }
        let reason = (object["reason"] as? String).map(APNsReason.init(rawValue:)) ?? noReasonGiven
        // Milliseconds since 1970 (apns-protocol.md §1). A peer's number past the year 33658
        // (1e15), negative or not finite is no date: dropped, not carried into conversions
        // (`APNsSendResult.milliseconds`) that would trap on it.
        let timestamp = (object["timestamp"] as? NSNumber).map(\.doubleValue).flatMap { milliseconds in
            milliseconds.isFinite && milliseconds >= 0 && milliseconds < 1e15 ? Date(timeIntervalSince1970: milliseconds / 1000) : nil
        }
        return (reason, timestamp)
    }

    /// What a rejection without a readable reason carries.
    static let noReasonGiven = APNsReason.unknown("(no reason given)")

    static func describe(_ error: ProviderSendError) -> String {
        switch error {
        case .cannotConnect(let why), .connectionLost(let why), .notProcessed(let why), .credentialsRejected(let why), .closed(let why): return why
        }
    }
}

