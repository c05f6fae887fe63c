// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport
import Foundation
import Synchronized

/// Where a run takes its notifications from: a feed read inline (never blocks), a feed read
/// ahead on its own thread (may block), the client's queue of single sends, or its share of a
/// feed that the runs of several event loops take from (`SharedFeed`).
enum BatchSource {
    enum Take {
        case item(index: Int, notification: APNsNotification)
        /// Nothing now; the source pumps the run when there is.
        case empty
        case ended
    }

    case inline(any APNsNotificationFeed)
    case prefetched(FeedPrefetcher)
    case queue(SingleSendQueue)
    /// One run's share of a feed that the runs of several event loops take from in stretches.
    case stretch(StretchSource)

    func take() -> Take {
        switch self {
        case .inline(let feed):
            guard let (index, notification) = feed.next() else { return .ended }
            return .item(index: index, notification: notification)
        case .prefetched(let prefetcher):
            switch prefetcher.take() {
            case .item(let item): return .item(index: item.index, notification: item.notification)
            case .empty: return .empty
            case .ended: return .ended
            }
        case .queue(let queue):
            return queue.take()
        case .stretch(let share):
            return share.take()
        }
    }

    /// Stops reading and returns what was read and not taken: it ends "not sent".
    func stop() -> [(index: Int, notification: APNsNotification)] {
        switch self {
        case .inline: return []
        case .prefetched(let prefetcher): return prefetcher.stop()
        case .queue(let queue): return queue.close()
        case .stretch(let share): return share.stop()
        }
    }
}

/// One batch (or the client's single sends): the shell around `BatchRunStateMachine`, which
/// makes every decision. The shell holds the machine behind one lock, feeds it events with the
/// time (uptime nanoseconds), and carries out what comes back: it reads the source, checks,
/// signs and submits requests, starts connects and the sleeps of back-offs and holds (in the
/// sender's `RunTasks`), cancels request handles, and hands results to `onResult`.
///
/// Completions drive everything: with HTTP/2 they run on the event loop thread, which then
/// submits the next request itself, so a notification costs no task, no continuation and no
/// thread hop. Tasks appear only for the rare things that wait: connecting and back-off.
///
/// Ending early (see `BatchRunStateMachine.beginStop`): `stop()` takes and sends nothing more
/// and lets in-flight requests get their answers; `cancel()` also gives those up
/// (`.cancelled(written:)` as they were or were not written); `cancel(index:)` ends one single
/// send.
final class BatchRun: Sendable {
    private let source: BatchSource
    /// Calls `onResult` off the loop thread (batches); nil: called inline (single sends,
    /// whose `onResult` resumes the sender's continuation).
    private let dispatcher: ResultDispatcher?
    /// This run's number at a dispatcher the runs of a batch on several loops share, which the
    /// batch starts (`BatchSender`); nil: the run's own dispatcher, which it starts.
    private let dispatcherOwner: Int?
    private let onResult: @Sendable (APNsSendResult) -> Void
    private let pool: ConnectionPool
    private let policy: APNsRetryPolicy
    private let tokens: ProviderTokenCache?
    private let observer: SenderObserver
    /// Token diagnosis: a BadDeviceToken result waits for the other environment's verdict
    /// before it is emitted (it stays outstanding meanwhile, so the run ends after it).
    private let diagnoser: TokenDiagnoser?
    /// The pool slot each of this run's slots uses.
    private let poolSlots: [Int]
    /// Where the run starts its tasks (connects, back-offs, the cancellation hold): the
    /// sender's, which `close()` ends and waits for.
    private let tasks: RunTasks
    /// The payload checked last: a batch's one payload is checked once.
    private let checkedPayload = CheckedPayloadMemo()

    private struct State {
        var machine: BatchRunStateMachine
        var onFinish: (@Sendable (APNsBatchSummary) -> Void)?
    }

    private let state: Locked<State>

    /// The machine's clock.
    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    init(source: BatchSource, poolSlots: [Int], window: Int, pool: ConnectionPool, policy: APNsRetryPolicy,
         tokens: ProviderTokenCache?, observer: SenderObserver, defaultBundleID: String? = nil, diagnoser: TokenDiagnoser? = nil,
         resultsOnOwnThread: Bool = false, sharedResults: (dispatcher: ResultDispatcher, owner: Int)? = nil, tasks: RunTasks = RunTasks(),
         onResult: @escaping @Sendable (APNsSendResult) -> Void) {
        self.tasks = tasks
        self.observer = observer
        self.diagnoser = diagnoser
        self.source = source
        self.poolSlots = poolSlots.isEmpty ? [0] : poolSlots
        self.onResult = onResult
        self.pool = pool
        self.policy = policy
        self.tokens = tokens
        let outagesAreFinal: Bool
        if case .queue = source { outagesAreFinal = false } else { outagesAreFinal = true }
        let settings = BatchRunStateMachine.Settings(slots: self.poolSlots.count, window: window, outagesAreFinal: outagesAreFinal,
                                                     handsOver: resultsOnOwnThread || sharedResults != nil, defaultBundleID: defaultBundleID)
        state = Locked(State(machine: BatchRunStateMachine(settings: settings)))
        dispatcherOwner = sharedResults?.owner
        dispatcher = sharedResults?.dispatcher ?? (resultsOnOwnThread ? ResultDispatcher(deliver: onResult) : nil)
    }

    /// A run over `feed`: read inline when it never blocks, else ahead on its own thread.
    convenience init(feed: any APNsNotificationFeed, poolSlots: [Int], window: Int, pool: ConnectionPool, policy: APNsRetryPolicy,
                     tokens: ProviderTokenCache?, observer: SenderObserver, defaultBundleID: String? = nil, diagnoser: TokenDiagnoser? = nil,
                     resultsOnOwnThread: Bool = false, tasks: RunTasks = RunTasks(), onResult: @escaping @Sendable (APNsSendResult) -> Void) {
        self.init(source: feed.mayBlock ? .prefetched(FeedPrefetcher(feed: feed)) : .inline(feed), poolSlots: poolSlots, window: window,
                  pool: pool, policy: policy, tokens: tokens, observer: observer, defaultBundleID: defaultBundleID, diagnoser: diagnoser,
                  resultsOnOwnThread: resultsOnOwnThread, tasks: tasks, onResult: onResult)
    }

    /// Sends everything; returns when every notification has its result.
    func run() async -> APNsBatchSummary {
        var summary = await withCheckedContinuation { continuation in
            start { continuation.resume(returning: $0) }
        }
        summary.reconnects = await pool.reconnectCount
        if let outage = await pool.outage {
            summary.connectionFailure = outage.reason
            summary.credentialsRejected = outage.credentialsRejected
        }
        return summary
    }

    /// Starts sending; `onFinish` runs once, when every notification taken has its result and
    /// the source has ended (or the run was stopped).
    func start(onFinish: @escaping @Sendable (APNsBatchSummary) -> Void) {
        state.withLock { $0.onFinish = onFinish }
        if dispatcherOwner == nil { dispatcher?.start { [self] count in delivered(count) } }
        if case .prefetched(let prefetcher) = source { prefetcher.start { [self] in pumpAll() } }
        pumpAll()
    }

    /// Stops taking work: what was read and not sent, and what waits for a retry, ends now
    /// (`unsentResult`); in-flight requests get their answers. Safe from any thread, repeatable.
    func stop() {
        guard state.withLock({ $0.machine.beginStop() }) else { return }
        let unread = source.stop()
        let ended = state.withLock { $0.machine.endStop(unread: unread, now: Self.now()) }
        for (item, result) in ended { emit(item, result) }
        finishIfDone()
    }

    /// `stop()`, and in-flight requests are given up too (their streams reset): each ends
    /// `.cancelled(written:)` as it was or was not written. Safe from any thread, repeatable.
    func cancel() {
        stop()
        let inFlight = state.withLock { $0.machine.takeInFlight() }
        for (item, request) in inFlight { giveUp(item, request) }
        finishIfDone()
    }

    /// One single send's task was cancelled: it ends now, `.cancelled(written:)` as it was.
    /// Still in the client's queue (not taken yet): removed, never sent. Not known at all (its
    /// `enqueue` is still to come): the queue remembers, and refuses it then.
    func cancel(index: Int) {
        let queue: SingleSendQueue?
        if case .queue(let singles) = source { queue = singles } else { queue = nil }
        // Under the run's lock, so the run cannot take it from the queue meanwhile.
        let (found, armHoldTimer) = state.withLock { state in
            state.machine.cancel(index: index, now: Self.now()) { queue?.cancelWaiting($0) }
        }
        if armHoldTimer { holdTimer() }
        switch found {
        case .notFound: break
        case .ended(let item, let result): emit(item, result)
        case .inFlight(let item, let request): giveUp(item, request)
        }
    }

    /// Cancels an in-flight request's handle (its stream is reset) and reports it.
    private func giveUp(_ item: PendingNotification, _ request: RequestCancellation) {
        let written = request.cancel()
        emit(item, state.withLock { $0.machine.cancelledInFlight(item, written: written) })
    }

    /// After a single send's cancellation: pumps every slot once the machine's hold is over.
    private func holdTimer() {
        tasks.spawn { [self] in
            while let wait = state.withLock({ $0.machine.holdTimerFired(now: Self.now()) }) {
                // Cancelled: the sender is closing, and this run was stopped.
                do { try await Task.sleep(nanoseconds: wait) } catch { return }
            }
            pumpAll()
        }
    }

    // MARK: taking work

    /// Carries out `slot`'s steps until its window is full, its connection is missing, or there
    /// is no work. `first`: a step the machine already took (a completion's).
    private func pump(_ slot: Int, first: consuming BatchRunStateMachine.Step? = nil) {
        var taken = first
        while true {
            // Moved, never copied: a step's payload is a tuple the runtime copies and destroys
            // field by field through its generic witnesses (several hundred instructions).
            let step: BatchRunStateMachine.Step
            if let first = taken.take() {
                step = first
            } else {
                step = state.withLock { [source] state in
                    state.machine.nextStep(slot: slot, now: Self.now()) { source.take() }
                }
            }
            switch consume step {
            case .idle:
                finishIfDone()
                return
            case .connect:
                connect(slot)
                return
            case .send(let item, let connection, let cancellation, let more):
                send(item, on: connection, slot: slot, cancellation: cancellation)
                // A full window: the next completion takes the next notification.
                if !more { return }
            case .emit(let item, let result):
                emit(item, result)
            }
        }
    }

    /// Pumps every slot, starting at a rotating one.
    func pumpAll() {
        let count = poolSlots.count
        let first = count == 1 ? 0 : state.withLock { $0.machine.rotateFirstSlot() }
        for offset in 0..<count { pump((first + offset) % count) }
    }

    private func connect(_ slot: Int) {
        tasks.spawn { [self] in
            let stale = state.withLock { $0.machine.connectStarted(slot: slot) }
            for connection in stale { await pool.discard(connection, slot: poolSlots[slot]) }
            do throws(ProviderSendError) {
                let connection = try await pool.connection(slot: poolSlots[slot])
                state.withLock { $0.machine.connected(slot: slot, connection) }
            } catch {
                state.withLock { $0.machine.connectFailed(slot: slot, error) }
            }
            pump(slot)
        }
    }

    // MARK: sending

    /// Checks, signs and submits a notification the machine took (outside the lock: the
    /// payload check and the provider token are the caller's work, not the lock's).
    private func send(_ item: PendingNotification, on connection: any ProviderConnection, slot: Int, cancellation: RequestCancellation) {
        var item = item
        if let problem = checkedPayload.problem(of: item.notification) {
            return giveBack(item, slot: slot, APNsSendError(.invalidNotification, "Not sent: \(problem)."))
        }
        // Two values, not a tuple: a request read out of a tuple was a copy, and the tuple then
        // went through the runtime's generic destroy (about 1k instructions a notification).
        let request: HTTP2Request, bearer: String?
        do throws(APNsSendError) {
            (request, bearer) = try item.history.nextAttempt(item.request, tokens: tokens)
        } catch {
            return giveBack(item, slot: slot, error)
        }
        // The entry is the attempt's receiver: it holds what the answer needs until it comes.
        item.entry.begin(NotificationEntry.Attempt(run: self, history: item.history, bearer: bearer, slot: slot, connection: connection))
        connection.submit(request, cancellation: cancellation, to: item.entry)
    }

    private func giveBack(_ item: PendingNotification, slot: Int, _ error: APNsSendError) {
        if let result = state.withLock({ $0.machine.notSubmitted(item, slot: slot, error) }) { emit(item, result) }
    }

    func complete(_ item: PendingNotification, bearer: String?, slot: Int, connection: any ProviderConnection,
                          result: Result<HTTP2Response, ProviderSendError>) {
        // Judged first, then applied under one lock (the loop thread takes the run's lock once
        // per answer: with several loops, each lock is a chance to wait for another thread).
        let answer = BatchRunStateMachine.judge(item, result, bearer: bearer, tokens: tokens, policy: policy)
        var completion = state.withLock { [source] state in
            state.machine.completed(answer, slot: slot, connection: connection, now: Self.now()) { source.take() }
        }
        if let result = completion.result.take() { emit(answer.item, result) }
        if let seconds = completion.backOff {
            let index = item.index
            tasks.spawn { [self] in
                try? await Task.sleep(nanoseconds: TimerSeconds.nanoseconds(seconds))
                state.withLock { $0.machine.backOffEnded(index: index) }
                pumpAll()
            }
        }
        pump(slot, first: (consume completion).next)
    }

    // MARK: results

    /// Hands a result the machine made (and counted) to `onResult`.
    private func emit(_ item: PendingNotification, _ result: consuming APNsSendResult) {
        guard let diagnoser, diagnoser.wants(result) else { return deliver(item, result) }
        // Off the loop thread: the other environment's answer is awaited, then the result
        // goes out with its verdict; it stays outstanding until then.
        let waiting = copy result
        Task { [self] in
            deliver(item, waiting.with(await diagnoser.diagnose(item.notification)))
            finishIfDone()
        }
    }

    private func deliver(_ item: PendingNotification, _ result: consuming APNsSendResult) {
        if let diagnosis = result.diagnosis { state.withLock { $0.machine.recordDiagnosis(diagnosis) } }
        observer.finished(result, pushType: item.notification.pushType, startedNanos: item.entry.startedNanos)
        if let dispatcher {
            dispatcher.submit(result, owner: dispatcherOwner ?? 0)
            return
        }
        onResult(result)
        _ = state.withLock { $0.machine.resultsDelivered(1) }
    }

    /// A stretch of `count` of this run's results reached `onResult` (on the dispatcher's thread).
    func delivered(_ count: Int) {
        let resume = state.withLock { $0.machine.resultsDelivered(count) }
        finishIfDone()
        // Only a run that held back for the consumer needs a push; otherwise the
        // completions keep the pipeline going on the loop thread.
        if resume { pumpAll() }
    }

    private func finishIfDone() {
        let done: (@Sendable (APNsBatchSummary) -> Void, APNsBatchSummary)? = state.withLock { state in
            guard state.machine.isDone, let onFinish = state.onFinish else { return nil }
            state.onFinish = nil
            return (onFinish, state.machine.totals)
        }
        if let (onFinish, summary) = done {
            dispatcher?.close()
            // Single sends finished in this loop turn are resumed before the run reports done.
            if case .queue(let singles) = source { singles.resumeFinished() }
            onFinish(summary)
        }
    }
}
