// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsTransport
import Synchronized

/// What one request's attempts so far decided, for the batch (`BatchRun`) and the single
/// exchanges (`PooledExchange`) alike: how many went out, whether one may have reached APNs,
/// whether the provider token was replaced. Its methods are the one place where an attempt is
/// counted and signed, its outcome judged (`RetryDecision`) and a final outcome given the word
/// of the attempts before it.
struct AttemptHistory: Sendable, Equatable {
    /// Requests sent (signed and handed to a connection).
    var attempts = 0
    /// An attempt was written and then lost (the connection died, no answer in time): APNs may
    /// have it, so a resend may notify twice, and ending it now must not say "not sent". An
    /// answered attempt never sets it: an answer other than 2xx means APNs did not take the
    /// notification (apns-protocol.md §1), so a 429 or 503 before a cancel leaves it unsent.
    var mayHaveBeenDelivered = false
    /// The provider token was replaced once after ExpiredProviderToken (never twice).
    var refreshedToken = false

    /// Signs `request` for the next attempt and counts it. A token that cannot be signed
    /// throws, and no attempt is counted (nothing went out). `consuming`: the caller's copy
    /// is signed in place, not copied again (a retain and a release of each of its fields).
    mutating func nextAttempt(_ request: consuming HTTP2Request, tokens: ProviderTokenCache?) throws(APNsSendError) -> (request: HTTP2Request, bearer: String?) {
        var request = request
        let bearer = try request.sign(with: tokens)
        attempts += 1
        return (request, bearer)
    }

    /// What the last attempt's outcome means (`RetryDecision`); `bearer`: the provider token it
    /// carried, replaced once if APNs says it expired.
    mutating func judge(_ result: Result<HTTP2Response, ProviderSendError>, bearer: String?, tokens: ProviderTokenCache?,
                        policy: APNsRetryPolicy, jitter: Double? = nil) -> RetryDecision {
        switch result {
        case .success(let response):
            return RetryDecision.afterAnswer(response, attempts: attempts, policy: policy, jitter: jitter) {
                guard let tokens, let bearer, !refreshedToken else { return false }
                refreshedToken = true
                return tokens.invalidate(bearer)
            }
        case .failure(let error):
            if error.mayHaveBeenProcessed { mayHaveBeenDelivered = true }
            return RetryDecision.afterFailure(error, attempts: attempts, policy: policy)
        }
    }

    /// `outcome`, keeping the word of every earlier attempt: once one may have reached APNs, no
    /// later failure (an unreachable gateway, a token that cannot be signed, a cancel before the
    /// resend) reports it safe to send again.
    func keepingWord(_ outcome: APNsSendResult.Outcome) -> APNsSendResult.Outcome {
        outcome.afterEarlierAttempt(mayHaveBeenDelivered: mayHaveBeenDelivered)
    }
}

/// What a notification's attempts share, made once when it is taken from the feed, and who
/// its attempt in flight tells the answer to. A class: a `PendingNotification` moves through
/// the run's tables and closures several times per attempt, and as a struct each move retained
/// and released every String and array of the notification and its request (about a dozen);
/// now it is one reference. Being the receiver too, it spares each attempt an object of its
/// own (issue 33: one object per notification, beside the request's handle, which is also its
/// stream's record).
///
/// `@unchecked Sendable`: `index` to `startedNanos` never change; `attempt` is written by the
/// run just before it submits the attempt (`send`) and taken by that attempt's one answer
/// (`received`), which the connection delivers after it took the request. A notification has
/// one attempt in flight at a time: the next is sent only after the run's state machine, under
/// its lock, judged the answer that took the last one, so no two accesses ever overlap.
final class NotificationEntry: ProviderResponseReceiver, @unchecked Sendable {
    let index: Int
    let notification: APNsNotification
    let apnsID: String
    /// The header block of the notification's topic, push type, priority and expiration,
    /// shared with the batch's other notifications (`BatchRunStateMachine.sharedHeaders`).
    let sharedHeaders: HTTP2HeaderBlock
    /// The run's clock (uptime nanoseconds) when it was taken from the feed (the duration metric).
    let startedNanos: UInt64

    /// The attempt in flight: what its answer needs besides the notification.
    struct Attempt {
        let run: BatchRun
        let history: AttemptHistory
        /// The provider token the request carried (a 403 for it renews it once).
        let bearer: String?
        let slot: Int
        let connection: any ProviderConnection
    }
    @exclusivity(unchecked) private var attempt: Attempt?

    init(index: Int, notification: APNsNotification, apnsID: String, sharedHeaders: HTTP2HeaderBlock, startedNanos: UInt64) {
        self.index = index
        self.notification = notification
        self.apnsID = apnsID
        self.sharedHeaders = sharedHeaders
        self.startedNanos = startedNanos
    }

    /// Called by the run just before it submits an attempt with this entry as its receiver.
    func begin(_ attempt: Attempt) { self.attempt = attempt }

    /// The attempt's answer, from its connection: handed to the run, and the attempt (which
    /// holds the run) let go.
    func received(provider outcome: Result<HTTP2Response, ProviderSendError>) {
        guard let attempt = attempt.take() else { return }
        attempt.run.complete(PendingNotification(entry: self, history: attempt.history), bearer: attempt.bearer, slot: attempt.slot,
                             connection: attempt.connection, result: outcome)
    }
}

/// One notification between the feed and its final result: its shared entry and what its
/// attempts so far decided.
struct PendingNotification: Sendable {
    let entry: NotificationEntry
    var history = AttemptHistory()
    var index: Int { entry.index }
    var notification: APNsNotification { entry.notification }
    /// Path, headers and payload (`authorization` is added per attempt), made for each
    /// attempt by the caller that submits it: not under the run's lock, where the entry is
    /// made, and no stored request copied out of the entry (a retry, rare, makes it again).
    var request: HTTP2Request { entry.notification.request(apnsID: entry.apnsID, shared: entry.sharedHeaders) }

    /// The result with `outcome`, with the word of every earlier attempt (`keepingWord`).
    func result(_ outcome: APNsSendResult.Outcome, uniqueID: String? = nil) -> APNsSendResult {
        APNsSendResult(index: index, token: notification.token, apnsIDText: entry.apnsID, uniqueIDText: uniqueID,
                       outcome: history.keepingWord(outcome), attempts: history.attempts, possiblyDuplicated: history.mayHaveBeenDelivered)
    }

    /// Ended before (another) attempt went out.
    var unsentResult: APNsSendResult { result(.cancelled(written: false)) }
}

/// The decisions of one batch (or of the client's single sends), without a lock, a task, a
/// clock or a socket: which notification goes out on which connection slot next, when a slot
/// connects, what an attempt's outcome does to its notification (final, again now, again after
/// a back-off, on a new connection), what stopping and cancelling end and how, when new work is
/// held back (after a single send's cancellation, for a slow consumer), and when the run is done.
///
/// In the shape of `HTTP2ConnectionStateMachine`: `BatchRun` (the shell) feeds it events under
/// its one lock and carries out what they return (submit a request, start a connect, sleep out
/// a back-off or a hold, hand a result over). Times are uptime nanoseconds passed in by the
/// caller, and the source of notifications is a closure, so `BatchRunStateMachineTests` drives
/// every rule with a fake clock and an array. The only things it touches beyond its own state
/// are a connection's `isUsable` flag and the `RequestCancellation` handle it makes per attempt.
///
/// Every notification taken from the source counts as `outstanding` until its one result was
/// handed over (`resultsDelivered`); every result is counted in `totals` when this machine
/// makes it. The run is done when the source has ended (or was stopped) and nothing is
/// outstanding.
struct BatchRunStateMachine: Sendable {
    struct Settings: Sendable {
        var slots: Int
        /// Requests in flight per slot at most.
        var window: Int
        /// True for batches: once the pool gives up on the gateway, the rest of the feed fails at
        /// once. False for the client's single sends, which outlive any outage.
        var outagesAreFinal: Bool
        /// True when results go to `onResult` through a `ResultDispatcher` (batches): they are
        /// counted until delivered, and past `consumerCapacity` waiting nothing new is taken.
        var handsOver: Bool
        var consumerCapacity = ResultDispatcher.capacity
        /// Notifications without a topic get this bundle id (`APNsNotification.withDefaults`).
        var defaultBundleID: String?
        /// Cancellations come in bursts: cancelling a task group cancels its child tasks one
        /// after another. Refilling a slot the moment a cancellation freed it would write the
        /// very requests the burst is about to cancel (measured: thousands delivered after a
        /// cancel). So after a cancellation nothing new is taken until `cancellationQuiet`
        /// nanoseconds pass without another, and at most `cancellationHoldLimit` from the first.
        var cancellationQuiet: UInt64 = 25_000_000
        var cancellationHoldLimit: UInt64 = 200_000_000

        init(slots: Int, window: Int, outagesAreFinal: Bool, handsOver: Bool, defaultBundleID: String? = nil) {
            self.slots = max(1, slots)
            self.window = max(1, window)
            self.outagesAreFinal = outagesAreFinal
            self.handsOver = handsOver
            self.defaultBundleID = defaultBundleID
        }
    }

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

    let settings: Settings
    private var slots: [Slot]
    /// Notifications to send again now (order does not matter: each has its own index).
    private var ready: [PendingNotification] = []
    /// A notification submitted and not yet answered (with its attempt's handle), or waiting
    /// out a back-off (no handle).
    private struct Active {
        var item: PendingNotification
        var request: RequestCancellation?
    }
    /// By index. One table for both: a notification's attempt costs one insert and one removal.
    /// Indices come in order (a feed's lines, the client's sends), so the table needs no
    /// hashing (`SequentialKeyTable`; a `Dictionary` cost about 700 instructions a notification).
    private var active = SequentialKeyTable<Active>()
    private(set) var outstanding = 0
    private(set) var sourceEnded = false
    private(set) var stopped = false
    /// Set when `takeItem` held back because too many results wait for `onResult`.
    private var waitingForConsumer = false
    /// After a single send's cancellation, nothing is taken or resent until this (0: no hold).
    private(set) var holdUntil: UInt64 = 0
    private var holdStarted: UInt64 = 0
    private var holdTimerArmed = false
    /// Where the next `pumpAll` starts.
    private var nextFirstSlot = 0
    private(set) var totals = APNsBatchSummary()
    /// Results counted in `totals` and not yet through `onResult` (with a dispatcher).
    private(set) var undelivered = 0
    /// `apns-id`s for notifications without one, made here (under the shell's lock, which
    /// taking holds anyway: a shared generator's lock was one more per notification).
    private var ids = MessageIDGenerator()
    /// The header block the last notification used, and what it was made of.
    private var lastSharedHeaders: (key: APNsNotification.SharedHeaderKey, block: HTTP2HeaderBlock)?

    init(settings: Settings) {
        self.settings = settings
        slots = Array(repeating: Slot(), count: settings.slots)
    }

    /// Every notification taken has its result handed over, and nothing more will be taken.
    var isDone: Bool { sourceEnded && outstanding == 0 }

    /// Requests in flight on `slot` (tests).
    func inFlight(slot: Int) -> Int { slots[slot].inFlight }

    // MARK: taking work

    /// Where a slot takes its next notification from: the shell's source (a feed, a read-ahead
    /// buffer, the single sends' queue); never blocks.
    typealias Source = () -> BatchSource.Take

    enum Step: Sendable {
        /// Nothing to do on this slot now: a completion, a connect, a timer or new input pumps again.
        case idle
        /// Start the slot's connect (`connectStarted`, then `connected` or `connectFailed`).
        case connect
        /// Check, sign and submit it on this connection with this handle (`completed` or
        /// `notSubmitted` follows); `more`: the slot's window had room for another after it.
        case send(PendingNotification, any ProviderConnection, RequestCancellation, more: Bool)
        /// Ended without a request (the gateway is unreachable): hand this result over.
        case emit(PendingNotification, APNsSendResult)
    }

    /// The next thing `slot` does at `now`.
    mutating func nextStep(slot: Int, now: UInt64, source: Source) -> Step {
        if stopped { return .idle }
        if holdUntil != 0 {
            if now < holdUntil { return .idle }
            holdUntil = 0
        }
        if let error = slots[slot].unreachable {
            // A batch fails the rest of its feed fast; the client's long-lived run asks the pool
            // again for the next send (the pool itself fails fast until its outage back-off ends).
            if !settings.outagesAreFinal { slots[slot].unreachable = nil }
            guard let item = takeItem(now: now, source: source) else { return .idle }
            return .emit(item, record(item.result(.failed(error))))
        }
        guard let connection = slots[slot].connection, connection.isUsable else {
            slots[slot].connection = nil
            // Connect only for real work: peek by moving the source's next item into `ready`.
            guard !slots[slot].connecting, let item = takeItem(now: now, source: source) else { return .idle }
            ready.append(item)
            slots[slot].connecting = true
            return .connect
        }
        guard slots[slot].inFlight < settings.window, let item = takeItem(now: now, source: source) else { return .idle }
        // In flight from here: a cancel finds it with its handle, and a handle cancelled before
        // the shell submits keeps the request from ever being written.
        slots[slot].inFlight += 1
        let cancellation = RequestCancellation()
        active.insert(Active(item: item, request: cancellation), for: item.index)
        return .send(item, connection, cancellation, more: slots[slot].inFlight < settings.window)
    }

    /// A retry waiting to go, else the source's next notification.
    private mutating func takeItem(now: UInt64, source: Source) -> PendingNotification? {
        if let item = ready.popLast() { return item }
        guard !sourceEnded else { return nil }
        // A consumer slower than the gateway: wait for it (its next delivery pumps again).
        if settings.handsOver, undelivered >= settings.consumerCapacity {
            waitingForConsumer = true
            return nil
        }
        switch source() {
        case .empty:
            return nil
        case .ended:
            sourceEnded = true
            return nil
        case .item(let index, let notification):
            outstanding += 1
            return pending(index: index, notification, now: now)
        }
    }

    private mutating func pending(index: Int, _ notification: consuming APNsNotification, now: UInt64) -> PendingNotification {
        let notification = notification.filledDefaults(bundleID: settings.defaultBundleID)
        let apnsID = notification.apnsID.map(MessageID.text) ?? ids.next()
        return PendingNotification(entry: NotificationEntry(index: index, notification: notification, apnsID: apnsID,
                                                            sharedHeaders: sharedHeaders(for: notification), startedNanos: now))
    }

    /// The header block for `notification`'s topic, push type, priority and expiration: the
    /// last one made when they are the same (a batch's are), else a new one.
    private mutating func sharedHeaders(for notification: APNsNotification) -> HTTP2HeaderBlock {
        // Compared where it lies: `if let last = lastSharedHeaders` copied the pair out and
        // destroyed the copy through the runtime's generic tuple code (about 1k instructions).
        if lastSharedHeaders?.key.matches(notification) == true, let block = lastSharedHeaders?.block { return block }
        let block = notification.sharedHeaderBlock()
        lastSharedHeaders = (notification.sharedHeaderKey, block)
        return block
    }

    /// Which slot the shell pumps first this time: single sends that come one at a time spread
    /// over every connection instead of filling the first one's window.
    mutating func rotateFirstSlot() -> Int {
        defer { nextFirstSlot = (nextFirstSlot + 1) % slots.count }
        return nextFirstSlot
    }

    // MARK: connecting

    /// The slot's connect begins: the connections the shell drops from the pool first.
    mutating func connectStarted(slot: Int) -> [any ProviderConnection] {
        defer { slots[slot].stale.removeAll() }
        return slots[slot].stale
    }

    mutating func connected(slot: Int, _ connection: any ProviderConnection) {
        slots[slot].connection = connection
        slots[slot].connecting = false
    }

    /// The pool could not (or will not) connect: what the slot takes next fails with why.
    mutating func connectFailed(slot: Int, _ error: ProviderSendError) {
        slots[slot].unreachable = APNsSendError(connectFailure: error)
        slots[slot].connecting = false
    }

    // MARK: outcomes

    /// A taken notification failed before it was submitted (its payload, its provider token):
    /// out of flight, and its result, unless a cancel gave it one meanwhile (nil).
    mutating func notSubmitted(_ item: PendingNotification, slot: Int, _ error: APNsSendError) -> APNsSendResult? {
        slots[slot].inFlight -= 1
        guard active.removeValue(for: item.index) != nil else { return nil }
        return record(item.result(.failed(error)))
    }

    /// An attempt's outcome, judged before the shell takes its lock (the token refresh and the
    /// JSON of a refusal are no work for the lock): `item` with its updated history.
    struct Answer: Sendable {
        var item: PendingNotification
        var decision: RetryDecision
        /// `apns-unique-id` of a delivered notification (sandbox only).
        var uniqueID: String?
        /// No answer: the connection failed the request, and is not used again.
        var connectionFailed: Bool
    }

    static func judge(_ item: PendingNotification, _ result: Result<HTTP2Response, ProviderSendError>, bearer: String?,
                      tokens: ProviderTokenCache?, policy: APNsRetryPolicy, jitter: Double? = nil) -> Answer {
        var item = item
        let decision = item.history.judge(result, bearer: bearer, tokens: tokens, policy: policy, jitter: jitter)
        switch result {
        case .success(let response):
            return Answer(item: item, decision: decision, uniqueID: decision == .final(.delivered) ? response.header("apns-unique-id") : nil,
                          connectionFailed: false)
        case .failure:
            return Answer(item: item, decision: decision, uniqueID: nil, connectionFailed: true)
        }
    }

    struct Completion: Sendable {
        /// The notification's result (counted): hand it over.
        var result: APNsSendResult?
        /// Sleep this many seconds, then `backOffEnded(index:)`.
        var backOff: Double?
        /// The slot's next step, taken at once: a completion frees one place in the window, and
        /// refilling it needs no second trip through the lock.
        var next: Step
    }

    /// The attempt of `answer.item` on `slot`'s `connection` ended.
    mutating func completed(_ answer: Answer, slot: Int, connection: any ProviderConnection, now: UInt64, source: Source) -> Completion {
        let item = answer.item
        slots[slot].inFlight -= 1
        // A run cancelled meanwhile (or this send's task) has already given it its result; its
        // stream was reset on purpose and the connection is fine.
        guard active.removeValue(for: item.index) != nil else {
            return Completion(next: nextStep(slot: slot, now: now, source: source))
        }
        if answer.connectionFailed {
            if let current = slots[slot].connection, current === connection { slots[slot].connection = nil }
            if !slots[slot].stale.contains(where: { $0 === connection }) { slots[slot].stale.append(connection) }
        }
        switch answer.decision {
        case .final(let outcome):
            let result = record(item.result(outcome, uniqueID: answer.uniqueID))
            return Completion(result: result, next: nextStep(slot: slot, now: now, source: source))
        case _ where stopped:
            // A stopped run sends nothing more: the retry ends here.
            return Completion(result: record(item.unsentResult), next: .idle)
        case .again:
            ready.append(item)
            return Completion(next: nextStep(slot: slot, now: now, source: source))
        case .after(let seconds):
            active.insert(Active(item: item, request: nil), for: item.index)
            return Completion(backOff: seconds, next: nextStep(slot: slot, now: now, source: source))
        }
    }

    /// A back-off ended: the notification goes back in line, unless the run was stopped or its
    /// send cancelled meanwhile.
    mutating func backOffEnded(index: Int) {
        guard let waiting = active[index], waiting.request == nil else { return }
        active.removeValue(for: index)
        ready.append(waiting.item)
    }

    // MARK: ending early

    /// Ending early comes in two strengths, each keeping "not sent" a promise (a request is
    /// "written" once its HEADERS frame was handed to the connection; `RequestCancellation`):
    /// - stop (a first SIGTERM, a graceful close): nothing more is taken or sent; what waits
    ///   ends `.cancelled(written: false)` unless an earlier attempt may have reached APNs; what
    ///   is in flight gets its answer (or its request timeout).
    /// - cancel (the caller's task was cancelled, a second signal): the same, and in-flight
    ///   requests are given up at once (`takeInFlight`).
    ///
    /// Stopping has two halves because the source gives back what it read ahead outside the
    /// lock (a read-ahead thread may be inside the feed). `beginStop`: nothing more is taken;
    /// false when the run was stopped already.
    mutating func beginStop() -> Bool {
        defer { stopped = true }
        return !stopped
    }

    /// The second half: the source was stopped and gave back `unread`. What waited (for its
    /// turn, for a back-off) and what was unread end now, not sent; the results (counted) to
    /// hand over. The source counts as ended only now, once the unread are outstanding, or a
    /// completion could see the run empty and finish it before their results are out.
    mutating func endStop(unread: [(index: Int, notification: APNsNotification)], now: UInt64) -> [(PendingNotification, APNsSendResult)] {
        sourceEnded = true
        let backingOff = active.entries.map(\.value).filter { $0.request == nil }.map(\.item)
        for item in backingOff { active.removeValue(for: item.index) }
        var ended = ready + backingOff
        ready.removeAll()
        for (index, notification) in unread {
            outstanding += 1
            ended.append(pending(index: index, notification, now: now))
        }
        return ended.map { ($0, record($0.unsentResult)) }
    }

    /// The requests in flight, given up: the shell cancels each handle (resetting its stream)
    /// and reports it with `cancelledInFlight`. Their late completions find them gone.
    mutating func takeInFlight() -> [(PendingNotification, RequestCancellation)] {
        let taken = active.entries.compactMap { entry in entry.value.request.map { (entry.value.item, $0) } }
        for (item, _) in taken { active.removeValue(for: item.index) }
        return taken
    }

    /// A request given up in flight: `written` is what its handle's `cancel()` said.
    mutating func cancelledInFlight(_ item: PendingNotification, written: Bool) -> APNsSendResult {
        record(item.result(.cancelled(written: written)))
    }

    enum Cancelled: Sendable {
        /// Not this run's (already ended, or not known yet: the queue remembers it).
        case notFound
        /// It waited (for its turn, a back-off, or in the client's queue): ended, not sent.
        case ended(PendingNotification, APNsSendResult)
        /// In flight: the shell cancels the handle and reports it with `cancelledInFlight`.
        case inFlight(PendingNotification, RequestCancellation)
    }

    /// One single send's task was cancelled at `now`. `takeWaiting` removes it from the
    /// client's queue if it still waits there. `armHoldTimer`: the hold began, and the shell
    /// must call `holdTimerFired` when it may be over.
    mutating func cancel(index: Int, now: UInt64, takeWaiting: (Int) -> APNsNotification?) -> (Cancelled, armHoldTimer: Bool) {
        if let position = ready.firstIndex(where: { $0.index == index }) {
            let item = ready.remove(at: position)
            return (.ended(item, record(item.unsentResult)), hold(now: now))
        }
        if let entry = active.removeValue(for: index) {
            let arm = hold(now: now)
            if let request = entry.request { return (.inFlight(entry.item, request), arm) }
            return (.ended(entry.item, record(entry.item.unsentResult)), arm)
        }
        if let notification = takeWaiting(index) {
            outstanding += 1
            let item = pending(index: index, notification, now: now)
            return (.ended(item, record(item.unsentResult)), hold(now: now))
        }
        return (.notFound, false)
    }

    /// Holds new work back while a burst of cancellations lasts; true when the hold timer must
    /// be armed (it is not already).
    private mutating func hold(now: UInt64) -> Bool {
        if holdUntil == 0 { holdStarted = now }
        holdUntil = min(holdStarted + settings.cancellationHoldLimit, now + settings.cancellationQuiet)
        guard !holdTimerArmed else { return false }
        holdTimerArmed = true
        return true
    }

    /// The hold timer fired at `now`: nanoseconds still to wait, or nil when the hold is over
    /// (the timer is disarmed; the shell pumps every slot).
    mutating func holdTimerFired(now: UInt64) -> UInt64? {
        if holdUntil > now { return holdUntil - now }
        holdTimerArmed = false
        return nil
    }

    // MARK: results

    /// Counts `result` in the totals and, with a dispatcher, as waiting for `onResult`.
    private mutating func record(_ result: APNsSendResult) -> APNsSendResult {
        totals.record(result)
        if settings.handsOver { undelivered += 1 }
        return result
    }

    /// A rejected result's token diagnosis arrived (counted apart from its result).
    mutating func recordDiagnosis(_ diagnosis: APNsTokenDiagnosis) {
        totals.recordDiagnosis(diagnosis)
    }

    /// `count` results went through `onResult`. True when the run held back for the consumer
    /// and must be pumped again.
    mutating func resultsDelivered(_ count: Int) -> Bool {
        outstanding -= count
        if settings.handsOver { undelivered -= count }
        defer { waitingForConsumer = false }
        return waitingForConsumer
    }
}
