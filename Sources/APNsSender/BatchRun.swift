// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport
import APNsProtocol
import Foundation
import Synchronized

/// What a notification's attempts share, made once when it is taken from the feed. A class:
/// a `PendingNotification` moves through the run's tables and closures several times per
/// attempt, and as a struct each move retained and released every String and array of the
/// notification and its request (about a dozen); now it is one reference.
final class NotificationEntry: Sendable {
    let index: Int
    let notification: APNsNotification
    let apnsID: String
    /// Path, headers and payload; `authorization` is added per attempt.
    let request: ProviderRequest
    /// `DispatchTime` nanoseconds when it was taken from the feed (for the duration metric).
    let startedNanos: UInt64

    init(index: Int, notification: APNsNotification, apnsID: String, request: ProviderRequest, startedNanos: UInt64) {
        self.index = index
        self.notification = notification
        self.apnsID = apnsID
        self.request = request
        self.startedNanos = startedNanos
    }
}

/// One notification between the feed and its final result: its shared entry and what its
/// attempts so far decided.
struct PendingNotification: Sendable {
    let entry: NotificationEntry
    var index: Int { entry.index }
    var notification: APNsNotification { entry.notification }
    var apnsID: String { entry.apnsID }
    var request: ProviderRequest { entry.request }
    var startedNanos: UInt64 { entry.startedNanos }
    var attempts = 0
    var possiblyDuplicated = false
    var refreshedToken = false
    /// An earlier attempt was written and then lost (connection died, no answer in time): APNs
    /// may have it, so ending it now must not say "not sent".
    var mayHaveBeenDelivered = false

    /// The result with `outcome`, which keeps the word of every earlier attempt: once one may
    /// have reached APNs, no later failure (an unreachable gateway, a token that cannot be
    /// signed, a cancel before the resend) reports it safe to send again.
    func result(_ outcome: APNsSendResult.Outcome, uniqueID: String? = nil) -> APNsSendResult {
        APNsSendResult(index: index, token: notification.token, apnsIDText: apnsID, uniqueIDText: uniqueID,
                       outcome: outcome.afterEarlierAttempt(mayHaveBeenDelivered: mayHaveBeenDelivered),
                       attempts: attempts, possiblyDuplicated: possiblyDuplicated)
    }

    /// Ended before (another) attempt went out.
    var unsentResult: APNsSendResult { result(.cancelled(written: false)) }
}

/// Where a run takes its notifications from: a feed read inline (never blocks), a feed read
/// ahead on its own thread (may block), or the client's queue of single sends.
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
        }
    }

    /// Stops reading and returns what was read and not taken: it ends "not sent".
    func stop() -> [(index: Int, notification: APNsNotification)] {
        switch self {
        case .inline: return []
        case .prefetched(let prefetcher): return prefetcher.stop()
        case .queue(let queue): return queue.close()
        }
    }
}

/// The state machine of one batch (or of the client's single sends): pulls notifications from
/// its source while a connection slot has room (`window` requests in flight), sends them with
/// `ProviderConnection.submit`, and decides in each completion whether the notification is
/// final or goes back in line (retry now, after a back-off, or on a new connection).
///
/// Completions drive everything: with HTTP/2 they run on the event loop thread, which then
/// submits the next request itself, so a notification costs no task, no continuation and no
/// thread hop. Tasks appear only for the rare things that wait: connecting and back-off.
///
/// Every notification taken from the source is `outstanding` until its one result is emitted;
/// the run ends when the source is exhausted (or stopped) and nothing is outstanding.
///
/// Ending early comes in two strengths, each keeping "not sent" a promise (a request is
/// "written" once its HEADERS frame was handed to the connection; `RequestCancellation`):
/// - `stop()` (a first SIGTERM, a graceful close): nothing more is taken or sent; what waits
///   ends `.cancelled(written: false)` unless an earlier attempt may have reached APNs; what is
///   in flight gets its answer (or its request timeout).
/// - `cancel()` (the caller's task was cancelled, a second signal): the same, and in-flight
///   requests are given up at once: `.cancelled(written: true)` if they went out, `false` if
///   they were still queued inside nghttp2 (they are then never written).
/// - `cancel(index:)`: one single send's task was cancelled.
final class BatchRun: Sendable {
    private let source: BatchSource
    /// Calls `onResult` off the loop thread (batches); nil: called inline (single sends,
    /// whose `onResult` resumes the sender's continuation).
    private let dispatcher: ResultDispatcher?
    private let onResult: @Sendable (APNsSendResult) -> Void
    private let pool: ConnectionPool
    private let policy: APNsRetryPolicy
    private let tokens: ProviderTokenCache?
    private let observer: SenderObserver
    private let defaultBundleID: String?
    /// Token diagnosis: a BadDeviceToken result waits for the other environment's verdict
    /// before it is emitted (it stays outstanding meanwhile, so the run ends after it).
    private let diagnoser: TokenDiagnoser?
    private let window: Int
    /// True for batches: once the pool gives up on the gateway, the rest of the feed fails at
    /// once. False for the client's single sends, which outlive any outage.
    private let outagesAreFinal: Bool
    /// The pool slot each of this run's slots uses.
    private let poolSlots: [Int]
    private var slotCount: Int { poolSlots.count }
    /// Where the run starts its tasks (connects, back-offs, the cancellation hold): the
    /// sender's, which `close()` ends and waits for.
    private let tasks: RunTasks

    private struct Slot {
        var connection: (any ProviderConnection)?
        var connecting = false
        var inFlight = 0
        /// Set when the pool gave up on the gateway: this slot fails what it takes, with this.
        var unreachable: APNsSendError?
        /// Connections that failed a request: the pool drops them before this slot reconnects
        /// (in that order, or the pool could hand the same connection back).
        var stale: [any ProviderConnection] = []
    }

    /// Everything mutable, behind one lock.
    private struct State {
        var slots: [Slot]
        /// Notifications to send again now (order does not matter: each has its own index).
        var ready: [PendingNotification] = []
        /// Notifications submitted and not yet answered, or waiting out a back-off, by index.
        var active: [Int: PendingNotification] = [:]
        /// The in-flight attempt of each submitted notification, by index.
        var inFlightRequests: [Int: RequestCancellation] = [:]
        var outstanding = 0
        var sourceEnded = false
        var stopped = false
        var cancelled = false
        /// Set when `takeItem` held back because too many results wait for `onResult`.
        var waitingForConsumer = false
        /// After a single send's cancellation, nothing is taken or resent until this
        /// (`DispatchTime` nanoseconds; 0: no hold). See `noteCancellation`.
        var holdUntil: UInt64 = 0
        var holdStarted: UInt64 = 0
        var holdTimerArmed = false
        /// Where the next `pumpAll` starts.
        var nextFirstSlot = 0
        var totals = APNsBatchSummary()
        /// Results counted in `totals` and not yet through `onResult` (with a dispatcher): the
        /// dispatcher's backlog, kept here so that taking work does not take its lock too.
        var undelivered = 0

        /// A result's one count: in the totals, and (`handedOver`) as waiting for `onResult`.
        mutating func record(_ result: APNsSendResult, handedOver: Bool) {
            totals.record(result)
            if handedOver { undelivered += 1 }
        }
        /// `apns-id`s for notifications without one, made under this lock, which `takeItem`
        /// holds anyway (the shared generator's lock was one more per notification, and one
        /// more for the loops of `--event-loops` to contend for).
        var ids = MessageIDGenerator()
        var onFinish: (@Sendable (APNsBatchSummary) -> Void)?
    }

    private let state: Locked<State>

    /// Cancellations come in bursts: cancelling a task group cancels its child tasks one after
    /// another. Refilling a slot the moment a cancellation freed it would write the very
    /// requests the burst is about to cancel (measured: thousands delivered after a cancel).
    /// So after a cancellation, the run takes nothing new until `cancellationQuiet` seconds
    /// pass without another, and at most `cancellationHoldLimit` seconds from the first.
    static let cancellationQuiet = 0.025
    static let cancellationHoldLimit = 0.2

    init(source: BatchSource, poolSlots: [Int], window: Int, pool: ConnectionPool, policy: APNsRetryPolicy,
         tokens: ProviderTokenCache?, observer: SenderObserver, defaultBundleID: String? = nil, diagnoser: TokenDiagnoser? = nil,
         resultsOnOwnThread: Bool = false, tasks: RunTasks = RunTasks(), onResult: @escaping @Sendable (APNsSendResult) -> Void) {
        self.tasks = tasks
        self.observer = observer
        self.defaultBundleID = defaultBundleID
        self.diagnoser = diagnoser
        self.source = source
        self.poolSlots = poolSlots.isEmpty ? [0] : poolSlots
        self.onResult = onResult
        self.pool = pool
        self.policy = policy
        self.tokens = tokens
        self.window = max(1, window)
        if case .queue = source { outagesAreFinal = false } else { outagesAreFinal = true }
        state = Locked(State(slots: Array(repeating: Slot(), count: self.poolSlots.count)))
        dispatcher = resultsOnOwnThread ? ResultDispatcher(deliver: onResult) : nil
    }

    /// A stretch of `count` results reached `onResult` (on the dispatcher's thread).
    private func delivered(_ count: Int) {
        let resume = state.withLock { state in
            state.outstanding -= count
            state.undelivered -= count
            defer { state.waitingForConsumer = false }
            return state.waitingForConsumer
        }
        finishIfDone()
        // Only a run that held back for the consumer needs a push; otherwise the
        // completions keep the pipeline going on the loop thread.
        if resume { pumpAll() }
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
        dispatcher?.start { [self] count in delivered(count) }
        if case .prefetched(let prefetcher) = source { prefetcher.start { [self] in pumpAll() } }
        pumpAll()
    }

    /// Stops taking work: what was read and not sent, and what waits for a retry, ends now
    /// (`unsentResult`); in-flight requests get their answers. Safe from any thread, repeatable.
    func stop() {
        // `stopped` first: nothing more is taken. `sourceEnded` only once what the source read
        // ahead is counted as outstanding, or a completion on another thread could see the run
        // empty and finish it (closing the result thread) before those results are out.
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        let unread = source.stop()
        let ended: [PendingNotification] = state.withLock { state in
            state.sourceEnded = true
            state.outstanding += unread.count
            let waiting = state.ready + state.active.values.filter { state.inFlightRequests[$0.index] == nil }
            state.ready.removeAll()
            for item in waiting { state.active[item.index] = nil }
            return waiting
        }
        for item in ended { emit(item, item.unsentResult) }
        for (index, notification) in unread { emitUnread(index: index, notification, counted: true) }
        finishIfDone()
    }

    /// `stop()`, and in-flight requests are given up too (their streams reset): each ends
    /// `.cancelled(written:)` as it was or was not written. Safe from any thread, repeatable.
    func cancel() {
        state.withLock { $0.cancelled = true }
        stop()
        let inFlight: [(PendingNotification, RequestCancellation)] = state.withLock { state in
            let taken = state.inFlightRequests.compactMap { index, request in state.active.removeValue(forKey: index).map { ($0, request) } }
            state.inFlightRequests.removeAll()
            return taken
        }
        for (item, request) in inFlight {
            let written = request.cancel()
            emit(item, item.result(.cancelled(written: written)))
        }
        finishIfDone()
    }

    /// One single send's task was cancelled: it ends now, `.cancelled(written:)` as it was.
    /// Still in the client's queue (not taken yet): removed, never sent. Not known at all (its
    /// `enqueue` is still to come): the queue remembers, and refuses it then.
    func cancel(index: Int) {
        enum Found { case none, unread(APNsNotification), waiting(PendingNotification), inFlight(PendingNotification, RequestCancellation) }
        // Under the run's lock, so the run cannot take it from the queue meanwhile.
        let found: Found = state.withLock { state in
            if let position = state.ready.firstIndex(where: { $0.index == index }) {
                noteCancellation(&state)
                return .waiting(state.ready.remove(at: position))
            }
            if let item = state.active.removeValue(forKey: index) {
                noteCancellation(&state)
                if let request = state.inFlightRequests.removeValue(forKey: index) { return .inFlight(item, request) }
                return .waiting(item)
            }
            if case .queue(let queue) = source, let notification = queue.cancelWaiting(index) {
                noteCancellation(&state)
                return .unread(notification)
            }
            return .none
        }
        switch found {
        case .none:
            break
        case .unread(let notification):
            emitUnread(index: index, notification)
        case .waiting(let item):
            emit(item, item.unsentResult)
        case .inFlight(let item, let request):
            let written = request.cancel()
            emit(item, item.result(.cancelled(written: written)))
        }
    }

    // MARK: taking work

    private enum Step {
        case idle
        case connect
        /// Taken, counted in flight and registered with its cancellation handle; `more`: the
        /// slot's window had room for another after it.
        case send(PendingNotification, any ProviderConnection, RequestCancellation, more: Bool)
        case fail(PendingNotification, APNsSendError)
    }

    /// Sends from `slot` until its window is full, its connection is missing, or there is no
    /// work. `first`: a step already taken under the lock by the caller (a completion takes
    /// the next notification in the same lock that settles the last one).
    private func pump(_ slot: Int, first: Step? = nil) {
        var taken = first
        while true {
            let step = taken ?? state.withLock { nextStep(slot, &$0) }
            taken = nil
            switch step {
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
            case .fail(let item, let error):
                emit(item, item.result(.failed(error)))
            }
        }
    }

    /// Pumps every slot, starting at a rotating one: single sends that come one at a time
    /// spread over every connection instead of filling the first one's window.
    func pumpAll() {
        let count = slotCount
        let first = count == 1 ? 0 : state.withLock { state -> Int in
            defer { state.nextFirstSlot = (state.nextFirstSlot + 1) % count }
            return state.nextFirstSlot
        }
        for offset in 0..<count { pump((first + offset) % count) }
    }

    /// Under the lock.
    private func nextStep(_ slot: Int, _ state: inout State) -> Step {
        if state.stopped { return .idle }
        if state.holdUntil != 0 {
            if DispatchTime.now().uptimeNanoseconds < state.holdUntil { return .idle }
            state.holdUntil = 0
        }
        if let error = state.slots[slot].unreachable {
            // A batch fails the rest of its feed fast; the client's long-lived run asks the pool
            // again for the next send (the pool itself fails fast until its outage back-off ends).
            if !outagesAreFinal { state.slots[slot].unreachable = nil }
            guard let item = takeItem(&state) else { return .idle }
            return .fail(item, error)
        }
        guard let connection = state.slots[slot].connection, connection.isUsable else {
            state.slots[slot].connection = nil
            // Connect only for real work: peek by moving the source's next item into `ready`.
            guard !state.slots[slot].connecting, let item = takeItem(&state) else { return .idle }
            state.ready.append(item)
            state.slots[slot].connecting = true
            return .connect
        }
        guard state.slots[slot].inFlight < window, let item = takeItem(&state) else { return .idle }
        // In flight from here: `cancel()` and `cancel(index:)` find it with its handle, and a
        // handle cancelled before `send` submits keeps the request from ever being written.
        state.slots[slot].inFlight += 1
        state.active[item.index] = item
        let cancellation = RequestCancellation()
        state.inFlightRequests[item.index] = cancellation
        return .send(item, connection, cancellation, more: state.slots[slot].inFlight < window)
    }

    /// Under the lock: a retry waiting to go, else the source's next notification.
    private func takeItem(_ state: inout State) -> PendingNotification? {
        if let item = state.ready.popLast() { return item }
        guard !state.sourceEnded else { return nil }
        // A consumer slower than the gateway: wait for it (its next delivery pumps again).
        if dispatcher != nil, state.undelivered >= ResultDispatcher.capacity {
            state.waitingForConsumer = true
            return nil
        }
        switch source.take() {
        case .empty:
            return nil
        case .ended:
            state.sourceEnded = true
            return nil
        case .item(let index, let notification):
            state.outstanding += 1
            return Self.pending(index: index, notification.withDefaults(bundleID: defaultBundleID), newID: state.ids.next())
        }
    }

    /// `newID`: the `apns-id` when the notification has none (made by the caller, who may
    /// hold a generator of its own).
    private static func pending(index: Int, _ notification: APNsNotification,
                                newID: @autoclosure () -> String = APNsNotification.newID()) -> PendingNotification {
        let apnsID = notification.apnsID.map(MessageID.text) ?? newID()
        return PendingNotification(entry: NotificationEntry(index: index, notification: notification, apnsID: apnsID,
                                                            request: notification.request(apnsID: apnsID),
                                                            startedNanos: DispatchTime.now().uptimeNanoseconds))
    }

    /// Under the lock: a single send was cancelled; hold new work back while the burst lasts
    /// (`cancellationQuiet`), and make sure a pump comes when it is over.
    private func noteCancellation(_ state: inout State) {
        let now = DispatchTime.now().uptimeNanoseconds
        if state.holdUntil == 0 { state.holdStarted = now }
        let limit = state.holdStarted + UInt64(Self.cancellationHoldLimit * 1e9)
        state.holdUntil = min(limit, now + UInt64(Self.cancellationQuiet * 1e9))
        guard !state.holdTimerArmed else { return }
        state.holdTimerArmed = true
        tasks.spawn { [self] in
            while true {
                let wait = self.state.withLock { state -> UInt64 in
                    let now = DispatchTime.now().uptimeNanoseconds
                    if state.holdUntil > now { return state.holdUntil - now }
                    state.holdTimerArmed = false
                    return 0
                }
                if wait == 0 { break }
                // Cancelled: the sender is closing, and this run was stopped.
                do { try await Task.sleep(nanoseconds: wait) } catch { return }
            }
            pumpAll()
        }
    }

    private func connect(_ slot: Int) {
        tasks.spawn { [self] in
            let stale = state.withLock { state in
                defer { state.slots[slot].stale.removeAll() }
                return state.slots[slot].stale
            }
            for connection in stale { await pool.discard(connection, slot: poolSlots[slot]) }
            do throws(ProviderSendError) {
                let connection = try await pool.connection(slot: poolSlots[slot])
                state.withLock { state in
                    state.slots[slot].connection = connection
                    state.slots[slot].connecting = false
                }
            } catch {
                let failure = APNsSendError(connectFailure: error)
                state.withLock { state in
                    state.slots[slot].unreachable = failure
                    state.slots[slot].connecting = false
                }
            }
            pump(slot)
        }
    }

    // MARK: sending

    /// Checks, signs and submits a notification `nextStep` took (outside the run's lock: the
    /// payload check and the provider token are the caller's work, not the lock's).
    private func send(_ item: PendingNotification, on connection: any ProviderConnection, slot: Int, cancellation: RequestCancellation) {
        var item = item
        if let problem = item.notification.localProblem() {
            giveBack(item, slot: slot, APNsSendError(.invalidNotification, "Not sent: \(problem)."))
            return
        }
        item.attempts += 1
        var request = item.request
        let bearer: String?
        do throws(APNsSendError) {
            bearer = try request.sign(with: tokens)
        } catch {
            giveBack(item, slot: slot, error)
            return
        }
        connection.submit(request, cancellation: cancellation) { [self, item, bearer] result in
            complete(item, bearer: bearer, slot: slot, connection: connection, result: result)
        }
    }

    /// A taken notification that fails before it is submitted: out of flight, and its result
    /// unless a cancel gave it one meanwhile.
    private func giveBack(_ item: PendingNotification, slot: Int, _ error: APNsSendError) {
        let mine = state.withLock { state in
            state.slots[slot].inFlight -= 1
            state.inFlightRequests.removeValue(forKey: item.index)
            return state.active.removeValue(forKey: item.index) != nil
        }
        if mine { emit(item, item.result(.failed(error))) }
    }

    private func complete(_ item: PendingNotification, bearer: String?, slot: Int, connection: any ProviderConnection,
                          result: Result<ProviderResponse, ProviderSendError>) {
        var item = item
        // Decided first, then applied under one lock (the loop thread takes the run's lock once
        // per answer: with several loops, each lock is a chance to wait for another thread).
        let decision: RetryDecision
        var uniqueID: String?
        var connectionFailed = false
        switch result {
        case .success(let response):
            decision = RetryDecision.afterAnswer(response, attempts: item.attempts, policy: policy) {
                guard let tokens, let bearer, !item.refreshedToken else { return false }
                item.refreshedToken = true
                return tokens.invalidate(bearer)
            }
            if decision == .final(.delivered) { uniqueID = response.header("apns-unique-id") }
        case .failure(let error):
            connectionFailed = true
            if error.mayHaveBeenProcessed {
                item.possiblyDuplicated = true
                item.mayHaveBeenDelivered = true
            }
            decision = RetryDecision.afterFailure(error, attempts: item.attempts, policy: policy)
        }
        let final: APNsSendResult?
        if case .final(let outcome) = decision { final = item.result(outcome, uniqueID: uniqueID) } else { final = nil }
        let retried = item
        // The slot's next notification is taken in the same lock: a completion frees one place
        // in the window, and refilling it needs no second trip through the lock.
        let (mine, endedByStop, next): (Bool, Bool, Step) = state.withLock { state in
            state.inFlightRequests.removeValue(forKey: retried.index)
            state.slots[slot].inFlight -= 1
            // A run cancelled meanwhile (or this send's task) has already given it its result;
            // its stream was reset on purpose and the connection is fine.
            guard state.active.removeValue(forKey: retried.index) != nil else { return (false, false, nextStep(slot, &state)) }
            if connectionFailed {
                if let current = state.slots[slot].connection, current === connection { state.slots[slot].connection = nil }
                if !state.slots[slot].stale.contains(where: { $0 === connection }) { state.slots[slot].stale.append(connection) }
            }
            if let final {
                state.record(final, handedOver: dispatcher != nil)
                return (true, false, nextStep(slot, &state))
            }
            // A stopped run sends nothing more: the retry ends here.
            if state.stopped { return (true, true, .idle) }
            if case .again = decision { state.ready.append(retried) } else { state.active[retried.index] = retried }
            return (true, false, nextStep(slot, &state))
        }
        if mine, let final { emit(item, final, recorded: true) }
        if endedByStop { emit(item, item.unsentResult) }
        if mine, !endedByStop, case .after(let seconds) = decision {
            tasks.spawn { [self, item] in
                try? await Task.sleep(nanoseconds: TimerSeconds.nanoseconds(seconds))
                state.withLock { state in
                    // Still ours unless the run was stopped or this send cancelled meanwhile.
                    if state.active.removeValue(forKey: item.index) != nil { state.ready.append(item) }
                }
                pumpAll()
            }
        }
        pump(slot, first: next)
    }

    // MARK: results

    /// A notification read from the source and never taken: it ends "not sent". `counted`:
    /// the caller already added it to `outstanding`.
    private func emitUnread(index: Int, _ notification: APNsNotification, counted: Bool = false) {
        if !counted { state.withLock { $0.outstanding += 1 } }
        let item = Self.pending(index: index, notification.withDefaults(bundleID: defaultBundleID))
        emit(item, item.unsentResult)
    }

    /// `recorded`: the caller already added it to the totals, under the lock it held anyway.
    private func emit(_ item: PendingNotification, _ result: APNsSendResult, recorded: Bool = false) {
        guard let diagnoser, diagnoser.wants(result) else { return deliver(item, result, recorded: recorded) }
        // Off the loop thread: the other environment's answer is awaited, then the result
        // goes out with its verdict; it stays outstanding until then.
        Task { [self] in
            deliver(item, result.with(await diagnoser.diagnose(item.notification)), recorded: recorded)
            finishIfDone()
        }
    }

    private func deliver(_ item: PendingNotification, _ result: APNsSendResult, recorded: Bool) {
        if !recorded || result.diagnosis != nil {
            state.withLock { state in
                if !recorded { state.record(result, handedOver: dispatcher != nil) }
                if let diagnosis = result.diagnosis { state.totals.recordDiagnosis(diagnosis) }
            }
        }
        observer.finished(result, pushType: item.notification.pushType, startedNanos: item.startedNanos)
        if let dispatcher {
            dispatcher.submit(result)
            return
        }
        onResult(result)
        state.withLock { $0.outstanding -= 1 }
    }

    private func finishIfDone() {
        let done: (@Sendable (APNsBatchSummary) -> Void, APNsBatchSummary)? = state.withLock { state in
            guard state.sourceEnded, state.outstanding == 0, let onFinish = state.onFinish else { return nil }
            state.onFinish = nil
            return (onFinish, state.totals)
        }
        if let (onFinish, summary) = done {
            dispatcher?.close()
            onFinish(summary)
        }
    }
}
