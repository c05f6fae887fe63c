import APNsTransport
import APNsProtocol
import Foundation

/// One notification between the feed and its final result.
struct PendingNotification: Sendable {
    let index: Int
    let notification: PushNotification
    let apnsID: String
    /// Path, headers and payload; `authorization` is added per attempt.
    let request: ProviderRequest
    /// `DispatchTime` nanoseconds when it was taken from the feed (for the duration metric).
    let startedNanos: UInt64
    var attempts = 0
    var possiblyDuplicated = false
    var refreshedToken = false

    func result(_ outcome: NotificationResult.Outcome, uniqueID: String? = nil) -> NotificationResult {
        NotificationResult(index: index, token: notification.token, apnsID: apnsID, uniqueID: uniqueID, outcome: outcome,
                           attempts: attempts, possiblyDuplicated: possiblyDuplicated)
    }
}

/// The state machine of one `BatchSender.send`: pulls notifications from the feed while a
/// connection slot has room (`window` requests in flight), sends them with
/// `ProviderConnection.submit`, and decides in each completion whether the notification is
/// final or goes back in line (retry now, after a back-off, or on a new connection).
///
/// Completions drive everything: with HTTP/2 they run on the event loop thread, which then
/// submits the next request itself, so a notification costs no task, no continuation and no
/// thread hop. Tasks appear only for the rare things that wait: connecting and back-off.
///
/// Every notification taken from the feed is `outstanding` until its one result is emitted;
/// the run ends when the feed is exhausted and nothing is outstanding.
///
/// A feed that may block is read ahead by a `FeedPrefetcher` on its own thread, never on the
/// loop thread. `cancel()` (the caller's task was cancelled) stops taking work and ends every
/// outstanding notification at once with `.cancelled`; answers that arrive later are dropped.
final class BatchRun: @unchecked Sendable {
    private let feed: any NotificationFeed
    private let prefetcher: FeedPrefetcher?
    /// Calls `onResult` off the loop thread (batches); nil: called inline (single sends,
    /// whose `onResult` is the sender's own quick box). Set once, in `init`.
    private var dispatcher: ResultDispatcher?
    private let onResult: @Sendable (NotificationResult) -> Void
    private let pool: ConnectionPool
    private let policy: RetryPolicy
    private let tokens: ProviderTokenCache?
    private let observer: SenderObserver
    private let defaultBundleID: String?
    private let window: Int
    /// The pool slot each of this run's slots uses (a single send takes the pool's next slot
    /// in turn, so single sends spread over every connection).
    private let poolSlots: [Int]

    private struct Slot {
        var connection: (any ProviderConnection)?
        var connecting = false
        var inFlight = 0
        /// Set when the pool gave up on the gateway: this slot fails what it takes, with this.
        var unreachable: String?
        /// Connections that failed a request: the pool drops them before this slot reconnects
        /// (in that order, or the pool could hand the same connection back).
        var stale: [any ProviderConnection] = []
    }

    /// Everything below is guarded by `lock`.
    private let lock = NSLock()
    private var slots: [Slot]
    /// Notifications to send again now (order does not matter: each has its own index).
    private var ready: [PendingNotification] = []
    /// Notifications submitted and not yet answered, or waiting out a back-off, by index:
    /// what `cancel()` must end besides `ready`.
    private var active: [Int: PendingNotification] = [:]
    /// The in-flight attempt of each submitted notification, by index: `cancel()` resets
    /// their streams so the gateway frees the slots at once.
    private var inFlightRequests: [Int: RequestCancellation] = [:]
    private var outstanding = 0
    private var feedEnded = false
    private var cancelled = false
    /// Set when `takeItem` held back because too many results wait for `onResult`.
    private var waitingForConsumer = false
    private var totals = BatchSummary()
    private var finished: CheckedContinuation<BatchSummary, Never>?

    init(feed: any NotificationFeed, poolSlots: [Int], window: Int, pool: ConnectionPool, policy: RetryPolicy,
         tokens: ProviderTokenCache?, observer: SenderObserver, defaultBundleID: String? = nil, resultsOnOwnThread: Bool = false,
         onResult: @escaping @Sendable (NotificationResult) -> Void) {
        self.observer = observer
        self.defaultBundleID = defaultBundleID
        self.feed = feed
        prefetcher = feed.mayBlock ? FeedPrefetcher(feed: feed) : nil
        self.poolSlots = poolSlots.isEmpty ? [0] : poolSlots
        self.onResult = onResult
        self.pool = pool
        self.policy = policy
        self.tokens = tokens
        self.window = max(1, window)
        self.slots = Array(repeating: Slot(), count: self.poolSlots.count)
        if resultsOnOwnThread {
            dispatcher = ResultDispatcher(deliver: onResult) { [self] count in
                let resume = lock.withLock {
                    outstanding -= count
                    defer { waitingForConsumer = false }
                    return waitingForConsumer
                }
                finishIfDone()
                // Only a run that held back for the consumer needs a push; otherwise the
                // completions keep the pipeline going on the loop thread.
                if resume { pumpAll() }
            }
        }
    }

    /// Sends everything; returns when every notification has its result.
    func run() async -> BatchSummary {
        var summary = await withCheckedContinuation { continuation in
            lock.withLock { finished = continuation }
            dispatcher?.start()
            prefetcher?.start { [self] in pumpAll() }
            for slot in slots.indices { pump(slot) }
        }
        summary.reconnects = await pool.reconnectCount
        if let outage = await pool.outage {
            summary.connectionFailure = outage.reason
            summary.credentialsRejected = outage.credentialsRejected
        }
        return summary
    }

    /// Ends the run now: nothing more is taken from the feed or sent, and every outstanding
    /// notification gets its `.cancelled` result (an in-flight one may still reach APNs; its
    /// late answer is dropped). Safe from any thread, more than once.
    func cancel() {
        prefetcher?.stop()
        let ended: [PendingNotification] = lock.withLock {
            guard !cancelled else { return [] }
            cancelled = true
            feedEnded = true
            let ended = ready + active.values
            ready.removeAll()
            active.removeAll()
            return ended
        }
        let requests = lock.withLock {
            defer { inFlightRequests.removeAll() }
            return Array(inFlightRequests.values)
        }
        for request in requests { request.cancel() }
        for item in ended { emit(item, item.result(.cancelled)) }
        finishIfDone()
    }

    // MARK: taking work

    private enum Step {
        case idle
        case connect
        case send(PendingNotification, any ProviderConnection)
        case fail(PendingNotification, String)
    }

    /// Sends from `slot` until its window is full, its connection is missing, or there is no work.
    private func pump(_ slot: Int) {
        while true {
            switch lock.withLock({ nextStep(slot) }) {
            case .idle:
                finishIfDone()
                return
            case .connect:
                connect(slot)
                return
            case .send(let item, let connection):
                send(item, on: connection, slot: slot)
            case .fail(let item, let why):
                emit(item, item.result(.failed(why)))
            }
        }
    }

    private func pumpAll() {
        for slot in slots.indices { pump(slot) }
    }

    /// Under `lock`.
    private func nextStep(_ slot: Int) -> Step {
        if cancelled { return .idle }
        if let why = slots[slot].unreachable {
            guard let item = takeItem() else { return .idle }
            return .fail(item, why)
        }
        guard let connection = slots[slot].connection, connection.isUsable else {
            slots[slot].connection = nil
            // Connect only for real work: peek by moving the feed's next item into `ready`.
            guard !slots[slot].connecting, let item = takeItem() else { return .idle }
            ready.append(item)
            slots[slot].connecting = true
            return .connect
        }
        guard slots[slot].inFlight < window, let item = takeItem() else { return .idle }
        if let problem = item.notification.localProblem() { return .fail(item, "Not sent: \(problem).") }
        slots[slot].inFlight += 1
        active[item.index] = item
        return .send(item, connection)
    }

    /// Under `lock`: a retry waiting to go, else the feed's next notification.
    private func takeItem() -> PendingNotification? {
        if let item = ready.popLast() { return item }
        guard !feedEnded else { return nil }
        // A consumer slower than the gateway: wait for it (its next delivery pumps again).
        if let dispatcher, dispatcher.backlog >= ResultDispatcher.capacity {
            waitingForConsumer = true
            return nil
        }
        let taken: FeedPrefetcher.Item
        if let prefetcher {
            switch prefetcher.take() {
            case .item(let item): taken = item
            case .empty: return nil
            case .ended:
                feedEnded = true
                return nil
            }
        } else {
            guard let item = feed.next() else {
                feedEnded = true
                return nil
            }
            taken = item
        }
        let index = taken.index
        let notification = taken.notification.withDefaults(bundleID: defaultBundleID)
        outstanding += 1
        let apnsID = notification.apnsID ?? PushNotification.newID()
        return PendingNotification(index: index, notification: notification, apnsID: apnsID,
                                   request: notification.request(apnsID: apnsID), startedNanos: DispatchTime.now().uptimeNanoseconds)
    }

    private func connect(_ slot: Int) {
        Task {
            let stale = lock.withLock {
                defer { slots[slot].stale.removeAll() }
                return slots[slot].stale
            }
            for connection in stale { await pool.discard(connection, slot: poolSlots[slot]) }
            do throws(ProviderSendError) {
                let connection = try await pool.connection(slot: poolSlots[slot])
                lock.withLock {
                    slots[slot].connection = connection
                    slots[slot].connecting = false
                }
            } catch {
                let why: String
                if case .credentialsRejected(let sentence) = error { why = "Not sent: \(sentence)" } else {
                    why = "Cannot reach the gateway: \(BatchSender.describe(error))"
                }
                lock.withLock {
                    slots[slot].unreachable = why
                    slots[slot].connecting = false
                }
            }
            pump(slot)
        }
    }

    // MARK: sending

    private func send(_ item: PendingNotification, on connection: any ProviderConnection, slot: Int) {
        var item = item
        item.attempts += 1
        var request = item.request
        var bearer: String?
        if let tokens {
            do {
                let (token, header) = try tokens.authorization()
                bearer = token
                request.headers.append(("authorization", header))
            } catch {
                let mine = lock.withLock {
                    slots[slot].inFlight -= 1
                    return active.removeValue(forKey: item.index) != nil
                }
                if mine { emit(item, item.result(.failed("Cannot sign a provider token: \(error)"))) }
                return
            }
        }
        let cancellation = RequestCancellation()
        let runCancelled = lock.withLock {
            if !cancelled { inFlightRequests[item.index] = cancellation }
            return cancelled
        }
        if runCancelled { cancellation.cancel() }
        connection.submit(request, cancellation: cancellation) { [self, item, bearer] result in
            complete(item, bearer: bearer, slot: slot, connection: connection, result: result)
        }
    }

    /// What becomes of a notification after one attempt.
    private enum Decision {
        case final(NotificationResult.Outcome, uniqueID: String?)
        case again
        case after(seconds: Double)
    }

    private func complete(_ item: PendingNotification, bearer: String?, slot: Int, connection: any ProviderConnection,
                          result: Result<ProviderResponse, ProviderSendError>) {
        var item = item
        // A run cancelled meanwhile has already given this notification its result.
        let mine = lock.withLock {
            inFlightRequests.removeValue(forKey: item.index)
            return active.removeValue(forKey: item.index) != nil
        }
        let decision: Decision
        switch result {
        case .success(let response):
            decision = decide(response, &item, bearer: bearer)
        case .failure where !mine:
            // Cancelled: the stream was reset on purpose; the connection is fine.
            decision = .again
        case .failure(let error):
            lock.withLock {
                if let current = slots[slot].connection, current === connection { slots[slot].connection = nil }
                if !slots[slot].stale.contains(where: { $0 === connection }) { slots[slot].stale.append(connection) }
            }
            if case .connectionLost = error { item.possiblyDuplicated = true }
            decision = item.attempts >= policy.maximumAttempts
                ? .final(.failed("Gave up after \(item.attempts) attempts: \(BatchSender.describe(error))"), uniqueID: nil)
                : .again
        }
        if mine, case .final(let outcome, let uniqueID) = decision { emit(item, item.result(outcome, uniqueID: uniqueID)) }
        lock.withLock {
            slots[slot].inFlight -= 1
            if mine, case .again = decision { ready.append(item) }
            if mine, case .after = decision { active[item.index] = item }
        }
        if mine, case .after(let seconds) = decision {
            Task { [item] in
                try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
                lock.withLock {
                    // Still ours unless the run was cancelled while it waited.
                    if active.removeValue(forKey: item.index) != nil { ready.append(item) }
                }
                pumpAll()
            }
        }
        pump(slot)
    }

    /// APNs' answer: final, or worth another attempt (apns-protocol.md §1: retry 429 and 5xx with
    /// back-off, never the permanent reasons; an expired provider token once, with a new one).
    private func decide(_ response: ProviderResponse, _ item: inout PendingNotification, bearer: String?) -> Decision {
        if response.status == 200 { return .final(.delivered, uniqueID: response.header("apns-unique-id")) }
        let (reason, timestamp) = BatchSender.parseError(response.body)
        if reason == APNsReason.expiredProviderToken.rawValue, let tokens, let bearer, !item.refreshedToken {
            item.refreshedToken = true
            if tokens.invalidate(bearer) { return .again }
        }
        let retryable = APNsReason(rawValue: reason)?.isRetryable ?? (response.status >= 500)
        if retryable && item.attempts < policy.maximumAttempts {
            let retryAfter = response.header("retry-after").flatMap(Double.init)
            return .after(seconds: min(policy.maximumDelay, retryAfter ?? policy.delay(afterAttempt: item.attempts)))
        }
        return .final(.rejected(status: response.status, reason: reason, timestamp: timestamp), uniqueID: nil)
    }

    // MARK: results

    private func emit(_ item: PendingNotification, _ result: NotificationResult) {
        lock.withLock { totals.record(result) }
        observer.finished(result, pushType: item.notification.pushType, startedNanos: item.startedNanos)
        if let dispatcher {
            dispatcher.submit(result)
            return
        }
        onResult(result)
        lock.withLock { outstanding -= 1 }
    }

    private func finishIfDone() {
        let done: (CheckedContinuation<BatchSummary, Never>, BatchSummary)? = lock.withLock {
            guard feedEnded, outstanding == 0, let continuation = finished else { return nil }
            finished = nil
            return (continuation, totals)
        }
        if let (continuation, summary) = done {
            dispatcher?.close()
            continuation.resume(returning: summary)
        }
    }
}
