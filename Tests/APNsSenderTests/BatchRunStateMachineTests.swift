// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
@testable import APNsSender
import APNsTransport
import Foundation
import Testing

/// `BatchRunStateMachine` driven the way `BatchRun` drives it, with a fake clock, an array for a
/// feed and connections that are never written to: holds, back-offs, outages, connections dying
/// with requests in flight, cancellation, stopping and the consumer bound, all without a socket,
/// a task or a sleep (issue 32).
@Suite("BatchRunStateMachine: a batch's decisions with a fake clock")
struct BatchRunStateMachineTests {
    static let ms: UInt64 = 1_000_000

    func response(_ status: Int, _ reason: String? = nil, retryAfter: String? = nil) -> Result<HTTP2Response, ProviderSendError> {
        .success(HTTP2Response(status: status, headers: retryAfter.map { [(name: "retry-after", value: $0)] } ?? [],
                                  body: reason.map { Array(#"{"reason":"\#($0)"}"#.utf8) } ?? []))
    }

    @Test("A batch connects for its first notification, keeps its window full from each answer, and is done once every result is handed over")
    func windowAndFinish() throws {
        let run = Harness(notifications: 5, window: 2)
        run.pump()
        #expect(run.connectRequests == [0] && run.submitted.isEmpty, "no request before the connection")
        run.connect(0, .success(TestConnection()))
        #expect(run.submitted.count == 2 && run.machine.inFlight(slot: 0) == 2, "the window, no more")
        for index in 0..<5 {
            #expect(run.submitted.count == min(2, 5 - index))
            run.answer(index, response(200))
        }
        #expect(run.results.map(\.outcome) == Array(repeating: .delivered, count: 5))
        #expect(run.results.allSatisfy { $0.attempts == 1 && !$0.possiblyDuplicated })
        #expect(!run.machine.isDone, "done only once the results went through onResult")
        run.deliver()
        #expect(run.machine.isDone && run.machine.totals.delivered == 5 && run.machine.totals.total == 5)
    }

    @Test("429 and 503 wait out their back-off on the fake clock (retry-after first), then go again; a 503 never makes a notification 'written'")
    func backOffs() throws {
        let run = Harness(notifications: 1, window: 1)
        run.pump()
        run.connect(0, .success(TestConnection()))
        run.answer(0, response(503, "ServiceUnavailable"))
        #expect(run.results.isEmpty && run.submitted.isEmpty && run.backOffs.map { $0.at } == [100 * Self.ms], "baseDelay 0.1 s, jitter 1")
        run.advance(to: 99 * Self.ms)
        #expect(run.submitted.isEmpty, "still backing off")
        run.advance(to: 100 * Self.ms)
        #expect(run.submitted[0]?.item.history.attempts == 2, "sent again once the back-off is over")
        run.answer(0, response(429, "TooManyRequests", retryAfter: "2"))
        #expect(run.backOffs.map { $0.at } == [2_100 * Self.ms], "retry-after: 2 seconds")
        run.advance(to: 2_099 * Self.ms)
        #expect(run.submitted.isEmpty)
        run.advance(to: 2_100 * Self.ms)
        run.answer(0, response(200))
        let result = try #require(run.results.first)
        #expect(result.outcome == .delivered && result.attempts == 3 && !result.possiblyDuplicated, "\(result)")
        #expect(run.machine.totals.retries == 2)

        // The last attempt's retryable answer is final.
        let giveUp = Harness(notifications: 1, window: 1)
        giveUp.pump()
        giveUp.connect(0, .success(TestConnection()))
        for attempt in 1...3 {
            giveUp.answer(0, response(503, "ServiceUnavailable"))
            if attempt < 3 { giveUp.advance(to: giveUp.backOffs[0].at) }
        }
        #expect(giveUp.results.map(\.outcome) == [.rejected(status: 503, reason: .serviceUnavailable, timestamp: nil)])
        #expect(giveUp.results.first?.attempts == 3)
    }

    @Test("Stopped during a back-off after a 503, the notification is 'not written'; after a lost attempt it is 'written'")
    func waitingKeepsItsWord() throws {
        let run = Harness(notifications: 2, window: 2)
        run.pump()
        let first = TestConnection()
        run.connect(0, .success(first))
        run.answer(0, response(503, "ServiceUnavailable"))  // backing off: APNs did not take it
        run.answer(1, .failure(.connectionLost("reset")))  // lost in flight: APNs may have it; waits for a new connection
        #expect(run.connectRequests == [0], "the slot reconnects for the lost one")
        let firstStop = run.machine.beginStop()
        let secondStop = run.machine.beginStop()
        #expect(firstStop && !secondStop, "stop once")
        let ended = run.machine.endStop(unread: [], now: run.now)
        let outcomes = Dictionary(uniqueKeysWithValues: ended.map { ($0.1.index, $0.1) })
        #expect(outcomes[0]?.outcome == .cancelled(written: false) && outcomes[0]?.possiblyDuplicated == false, "\(ended)")
        #expect(outcomes[1]?.outcome == .cancelled(written: true) && outcomes[1]?.possiblyDuplicated == true, "\(ended)")
        run.results += ended.map { $0.1 }
        run.advance(to: 100 * Self.ms)  // the back-off's sleep ends anyway
        #expect(run.submitted.isEmpty && run.results.count == 2, "nothing is sent after a stop, nothing reported twice")
        run.deliver()
        #expect(run.machine.isDone && run.machine.totals.notSent == 1 && run.machine.totals.cancelled == 1)
    }

    @Test("An outage: a batch fails the rest of its feed fast; the single sends fail what they took, then reconnect for the next and recover")
    func outages() throws {
        let batch = Harness(notifications: 4, window: 2)
        batch.pump()
        batch.connect(0, .failure(.cannotConnect("Connection refused.")))
        #expect(batch.results.count == 4 && batch.connectRequests.isEmpty, "no connect per notification")
        for result in batch.results {
            guard case .failed(let error) = result.outcome else {
                Issue.record("\(result)")
                continue
            }
            #expect(error.code == .gatewayUnreachable && !error.mayHaveBeenDelivered && result.attempts == 0, "\(error)")
        }
        batch.deliver()
        #expect(batch.machine.isDone && batch.machine.totals.failed == 4)

        let singles = Harness(notifications: 1, window: 2, singleSends: true)
        singles.pump()
        singles.connect(0, .failure(.credentialsRejected("The gateway refused the client certificate.")))
        guard case .failed(let refused) = singles.results.first?.outcome else {
            Issue.record("\(singles.results)")
            return
        }
        #expect(refused.code == .credentialsRejected)
        singles.source.add(1)
        singles.pump()
        #expect(singles.connectRequests == [0], "the next send asks the pool again")
        singles.connect(0, .success(TestConnection()))
        singles.answer(1, response(200))
        #expect(singles.results.map(\.outcome).last == .delivered)
        singles.deliver()
        #expect(!singles.machine.isDone, "the single sends' run lasts until its queue closes")
    }

    @Test("A connection dies with requests in flight: they are resent on a new one and marked possibly duplicated; if the reconnect fails, they end 'may have been delivered'")
    func connectionDiesInFlight() throws {
        for reconnects in [true, false] {
            let run = Harness(notifications: 3, window: 3)
            run.pump()
            let dead = TestConnection()
            run.connect(0, .success(dead))
            run.answer(0, .failure(.connectionLost("The connection closed with the request in flight.")))
            run.answer(1, .failure(.connectionLost("The connection closed with the request in flight.")))
            run.answer(2, .failure(.notProcessed("REFUSED_STREAM")))
            #expect(run.results.isEmpty && run.connectRequests == [0], "one reconnect for all three")
            let stale = run.connect(0, reconnects ? .success(TestConnection()) : .failure(.cannotConnect("Connection refused.")))
            #expect(stale.count == 1 && stale.first === dead, "the pool drops the dead connection before the reconnect")
            if reconnects {
                #expect(run.submitted.count == 3)
                for index in 0..<3 { run.answer(index, response(200)) }
            }
            let byIndex = Dictionary(uniqueKeysWithValues: run.results.map { ($0.index, $0) })
            #expect(byIndex.count == 3)
            for index in 0..<2 {
                let result = try #require(byIndex[index])
                #expect(result.possiblyDuplicated, "\(result)")
                if reconnects {
                    #expect(result.outcome == .delivered && result.attempts == 2)
                } else {
                    guard case .failed(let error) = result.outcome else {
                        Issue.record("\(result)")
                        continue
                    }
                    // Issue 32's soak: this was reported safe to resend.
                    #expect(error.code == .gatewayUnreachable && error.mayHaveBeenDelivered, "\(error)")
                }
            }
            let refused = try #require(byIndex[2])
            #expect(!refused.possiblyDuplicated, "refused: never processed")
            if case .failed(let error) = refused.outcome { #expect(!error.mayHaveBeenDelivered, "\(error)") }
            run.deliver()
            #expect(run.machine.isDone)
        }
    }

    @Test("Cancelling a batch: written in-flight requests end written: true, unwritten ones and what was read ahead written: false; late answers are not reported again")
    func cancellation() throws {
        let run = Harness(notifications: 3, window: 3)
        run.writesOnSubmit = false
        run.pump()
        run.connect(0, .success(TestConnection()))
        #expect(run.submitted.count == 3)
        // 0 and 1 went out; 2 still waits in nghttp2's queue.
        let written = [0, 1].map { run.submitted[$0]?.cancellation.markWritten() }
        #expect(written == [true, true])
        // The shell's cancel(): stop (with two notifications the read-ahead thread held), then
        // give up what is in flight.
        let stopped = run.machine.beginStop()
        #expect(stopped)
        let readAhead = notifications(2).enumerated().map { (index: 10 + $0.offset, notification: $0.element) }
        run.results += run.machine.endStop(unread: readAhead, now: run.now).map { $0.1 }
        for (item, request) in run.machine.takeInFlight() {
            run.results.append(run.machine.cancelledInFlight(item, written: request.cancel()))
        }
        let outcomes = Dictionary(uniqueKeysWithValues: run.results.map { ($0.index, $0.outcome) })
        #expect(outcomes == [0: .cancelled(written: true), 1: .cancelled(written: true), 2: .cancelled(written: false),
                             10: .cancelled(written: false), 11: .cancelled(written: false)])
        #expect(run.submitted[2]?.cancellation.markWritten() == false, "a cancelled request is never written afterwards")
        // The reset streams' completions arrive later: nothing is reported twice.
        for index in 0..<3 { run.answer(index, .failure(.connectionLost("cancelled"))) }
        #expect(run.results.count == 5 && run.machine.inFlight(slot: 0) == 0 && run.connectRequests.isEmpty)
        run.deliver()
        #expect(run.machine.isDone && run.machine.totals.cancelled == 2 && run.machine.totals.notSent == 3)
    }

    @Test("A single send's cancellation: still queued, waiting or in flight, each ends as it was; new work is held 25 ms after the last cancel, 200 ms at most")
    func singleSendCancellationAndHolds() throws {
        let run = Harness(notifications: 3, window: 4, singleSends: true)
        run.pump()
        run.connect(0, .success(TestConnection()))
        #expect(run.submitted.count == 3)
        let (inFlight, arm) = run.machine.cancel(index: 1, now: 0) { run.source.cancelWaiting($0) }
        guard case .inFlight(let item, let request) = inFlight else {
            Issue.record("\(inFlight)")
            return
        }
        #expect(arm, "the first cancellation arms the hold timer")
        run.results.append(run.machine.cancelledInFlight(item, written: request.cancel()))
        #expect(run.results.last?.outcome == .cancelled(written: true))
        run.submitted[1] = nil
        run.source.add(2)  // indices 3 and 4
        run.advance(to: 10 * Self.ms)
        #expect(run.submitted.count == 2, "held: nothing new is taken while the burst may go on")
        let stillToWait = run.machine.holdTimerFired(now: 10 * Self.ms)
        #expect(stillToWait == 15 * Self.ms)
        // Still in the client's queue: taken out, never sent.
        let (queued, armAgain) = run.machine.cancel(index: 4, now: 20 * Self.ms) { run.source.cancelWaiting($0) }
        guard case .ended(_, let unsent) = queued else {
            Issue.record("\(queued)")
            return
        }
        #expect(unsent.outcome == .cancelled(written: false) && !armAgain, "\(unsent)")
        run.results.append(unsent)
        run.advance(to: 44 * Self.ms)
        #expect(run.submitted.count == 2, "the quiet period starts again at each cancellation")
        let over = run.machine.holdTimerFired(now: 45 * Self.ms)
        #expect(over == nil, "the hold is over: the timer disarms, the shell pumps")
        run.advance(to: 45 * Self.ms)
        #expect(run.submitted.count == 3 && run.submitted[3] != nil)
        // Unknown (its enqueue is still to come): the queue remembers it, the run holds nothing.
        let (unknown, armUnknown) = run.machine.cancel(index: 99, now: 50 * Self.ms) { run.source.cancelWaiting($0) }
        if case .notFound = unknown {} else { Issue.record("\(unknown)") }
        #expect(!armUnknown && run.source.cancelledEarly == [99])

        // A burst that never goes quiet is held 200 ms from its first cancellation, not longer.
        let burst = Harness(notifications: 12, window: 20, singleSends: true)
        burst.pump()
        #expect(burst.connectRequests == [0], "index 0 is taken to connect for; 1...11 wait in the queue")
        for step in 0..<10 {
            let (cancelled, _) = burst.machine.cancel(index: step + 1, now: UInt64(step) * 20 * Self.ms) { burst.source.cancelWaiting($0) }
            if case .ended(_, let result) = cancelled { burst.results.append(result) } else { Issue.record("\(cancelled)") }
        }
        #expect(burst.machine.holdUntil == 200 * Self.ms)
        burst.now = 190 * Self.ms
        burst.connect(0, .success(TestConnection()))
        #expect(burst.submitted.isEmpty, "connected within the hold: nothing goes out")
        burst.advance(to: 200 * Self.ms)
        #expect(burst.submitted.count == 2 && burst.submitted[0] != nil && burst.submitted[11] != nil)
        #expect(burst.results.allSatisfy { $0.outcome == .cancelled(written: false) } && burst.results.count == 10)
    }

    @Test("Stop (close, a first SIGTERM): nothing more is taken, in-flight requests get their answers, a retry ends not sent; untaken notifications stay untaken")
    func stop() throws {
        let run = Harness(notifications: 5, window: 2)
        run.pump()
        run.connect(0, .success(TestConnection()))
        let stopped = run.machine.beginStop()
        let ended = run.machine.endStop(unread: [], now: run.now)
        #expect(stopped && ended.isEmpty, "nothing waited")
        run.pump()
        #expect(run.source.taken == 2, "nothing taken after the stop")
        run.answer(0, response(200))
        run.answer(1, response(503, "ServiceUnavailable"))
        #expect(run.results.map(\.outcome) == [.delivered, .cancelled(written: false)], "the answer counts; the retry ends here")
        #expect(run.backOffs.isEmpty && run.submitted.isEmpty)
        #expect(!run.machine.isDone)
        run.deliver()
        #expect(run.machine.isDone && run.machine.totals.total == 2, "2 reported + 3 never taken = 5")
    }

    @Test("A consumer slower than the gateway: past its capacity of waiting results nothing more is read, and its delivery resumes the run")
    func consumerBound() throws {
        let run = Harness(notifications: 8, window: 2, handsOver: true, consumerCapacity: 2)
        run.pump()
        run.connect(0, .success(TestConnection()))
        run.answer(0, response(200))
        run.answer(1, response(200))
        #expect(run.machine.undelivered == 2 && run.source.taken == 3, "the third was taken before the second result; no fourth")
        #expect(run.submitted.count == 1)
        let resume = run.deliver()
        #expect(resume, "the run held back: the delivery pumps it")
        run.pump()
        #expect(run.source.taken == 4 && run.submitted.count == 2)
        while let index = run.submitted.keys.min() {
            run.answer(index, response(200))
            run.deliver()
            run.pump()
        }
        #expect(run.results.count == 8 && run.machine.isDone)
    }

    @Test("A notification that fails before it is submitted (its payload, its token) leaves the window and ends failed, unless a cancel ended it first")
    func notSubmitted() throws {
        let run = Harness(notifications: 2, window: 2)
        run.pump()
        run.connect(0, .success(TestConnection()))
        let taken = run.submitted.removeValue(forKey: 0)
        let first = try #require(taken)
        let failed = run.machine.notSubmitted(first.item, slot: 0, APNsSendError(.tokenSigningFailed, "Cannot sign a provider token."))
        let result = try #require(failed)
        guard case .failed(let error) = result.outcome else {
            Issue.record("\(result)")
            return
        }
        #expect(error.code == .tokenSigningFailed && run.machine.inFlight(slot: 0) == 1, "out of the window")
        _ = run.machine.beginStop()
        _ = run.machine.endStop(unread: [], now: run.now)
        for (item, request) in run.machine.takeInFlight() { run.results.append(run.machine.cancelledInFlight(item, written: request.cancel())) }
        let takenSecond = run.submitted.removeValue(forKey: 1)
        let second = try #require(takenSecond)
        let late = run.machine.notSubmitted(second.item, slot: 0, APNsSendError(.invalidNotification, "Not sent."))
        #expect(late == nil, "the cancel gave it its result already")
        #expect(run.results.map(\.outcome) == [.cancelled(written: true)] && run.machine.inFlight(slot: 0) == 0)
    }
}

/// A connection the machine only asks whether it is usable: the tests play the shell, so
/// nothing is ever submitted to it.
final class TestConnection: ProviderConnection, @unchecked Sendable {
    private let lock = NSLock()
    private var open = true
    var isUsable: Bool { lock.withLock { open } }
    var maxConcurrentStreams: Int { 100 }
    func close() { lock.withLock { open = false } }
    func send(_ request: HTTP2Request) async throws(ProviderSendError) -> HTTP2Response {
        throw .notProcessed("A test connection sends nothing.")
    }
}

/// The feed of a batch (ends when empty) or the client's queue of single sends (never ends).
final class ScriptedSource {
    private var waiting: [(index: Int, notification: APNsNotification)]
    private var nextIndex: Int
    private let endsWhenEmpty: Bool
    private(set) var taken = 0
    private(set) var cancelledEarly: [Int] = []

    init(count: Int, endsWhenEmpty: Bool) {
        waiting = notifications(count).enumerated().map { (index: $0.offset, notification: $0.element) }
        nextIndex = count
        self.endsWhenEmpty = endsWhenEmpty
    }

    func take() -> BatchSource.Take {
        guard !waiting.isEmpty else { return endsWhenEmpty ? .ended : .empty }
        taken += 1
        let item = waiting.removeFirst()
        return .item(index: item.index, notification: item.notification)
    }

    func add(_ count: Int) {
        for notification in notifications(count) {
            waiting.append((nextIndex, notification))
            nextIndex += 1
        }
    }

    /// `SingleSendQueue.cancelWaiting`.
    func cancelWaiting(_ index: Int) -> APNsNotification? {
        if let position = waiting.firstIndex(where: { $0.index == index }) { return waiting.remove(at: position).notification }
        cancelledEarly.append(index)
        return nil
    }
}

/// Plays `BatchRun`'s part synchronously: carries out the machine's steps, keeps the submitted
/// requests and the back-off timers, and moves a fake clock.
final class Harness {
    struct Submitted {
        var item: PendingNotification
        var cancellation: RequestCancellation
        var slot: Int
        var connection: any ProviderConnection
    }

    var machine: BatchRunStateMachine
    let source: ScriptedSource
    let policy = APNsRetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(100), maximumDelay: .seconds(5))
    var now: UInt64 = 0
    var results: [APNsSendResult] = []
    private var delivered = 0
    var submitted: [Int: Submitted] = [:]
    var connectRequests: [Int] = []
    var backOffs: [(at: UInt64, index: Int)] = []
    /// Each request counts as written as it is submitted (as a session writes its HEADERS).
    var writesOnSubmit = true

    init(notifications count: Int, window: Int, singleSends: Bool = false, handsOver: Bool = false, consumerCapacity: Int? = nil) {
        var settings = BatchRunStateMachine.Settings(slots: 1, window: window, outagesAreFinal: !singleSends, handsOver: handsOver)
        if let consumerCapacity { settings.consumerCapacity = consumerCapacity }
        machine = BatchRunStateMachine(settings: settings)
        source = ScriptedSource(count: count, endsWhenEmpty: !singleSends)
    }

    func pump(_ slot: Int = 0, first: BatchRunStateMachine.Step? = nil) {
        var taken = first
        while true {
            let step = taken ?? machine.nextStep(slot: slot, now: now, source: source.take)
            taken = nil
            switch step {
            case .idle:
                return
            case .connect:
                connectRequests.append(slot)
                return
            case .send(var item, let connection, let cancellation, let more):
                _ = try? item.history.nextAttempt(item.request, tokens: nil)
                if writesOnSubmit { #expect(cancellation.markWritten()) }
                submitted[item.index] = Submitted(item: item, cancellation: cancellation, slot: slot, connection: connection)
                if !more { return }
            case .emit(_, let result):
                results.append(result)
            }
        }
    }

    /// The slot's connect ends with `outcome`; returns the connections the pool was told to drop.
    @discardableResult
    func connect(_ slot: Int, _ outcome: Result<TestConnection, ProviderSendError>) -> [any ProviderConnection] {
        connectRequests.removeAll { $0 == slot }
        let stale = machine.connectStarted(slot: slot)
        switch outcome {
        case .success(let connection): machine.connected(slot: slot, connection)
        case .failure(let error): machine.connectFailed(slot: slot, error)
        }
        pump(slot)
        return stale
    }

    /// The request of notification `index` completes with `result`.
    func answer(_ index: Int, _ result: Result<HTTP2Response, ProviderSendError>) {
        guard let request = submitted.removeValue(forKey: index) else {
            Issue.record("notification \(index) is not in flight")
            return
        }
        let answer = BatchRunStateMachine.judge(request.item, result, bearer: nil, tokens: nil, policy: policy, jitter: 1)
        let completion = machine.completed(answer, slot: request.slot, connection: request.connection, now: now, source: source.take)
        if let result = completion.result { results.append(result) }
        if let seconds = completion.backOff { backOffs.append((now + TimerSeconds.nanoseconds(seconds), index)) }
        pump(request.slot, first: completion.next)
    }

    /// The clock moves to `time`: the back-offs due end (the shell's sleeps), then the slots
    /// are pumped (what the back-off and hold timers do).
    func advance(to time: UInt64) {
        now = time
        for timer in backOffs where timer.at <= now { machine.backOffEnded(index: timer.index) }
        backOffs.removeAll { $0.at <= now }
        pump()
    }

    /// Hands every result made so far to the consumer; true when the run asked to be pumped.
    @discardableResult
    func deliver() -> Bool {
        defer { delivered = results.count }
        return machine.resultsDelivered(results.count - delivered)
    }
}
