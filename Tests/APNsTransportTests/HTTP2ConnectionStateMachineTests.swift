// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport
import Testing

/// The connection's bookkeeping without sockets, nghttp2 or threads: the clock is a number the
/// test passes in.
@Suite("HTTP/2 connection state machine")
struct HTTP2ConnectionStateMachineTests {
    typealias Machine = HTTP2ConnectionStateMachine

    @Test("Deadlines: one sweep timer, armed for the earliest; streams expire earliest first; ended ones never do")
    func deadlinesExpireInOrder() {
        var machine = Machine(now: 0)
        let step1 = machine.streamStarted(1, deadline: 5_000)
        #expect(step1 == .arm(at: 5_000))
        let step2 = machine.streamStarted(3, deadline: 9_000)
        #expect(step2 == .keep)        // later: the armed timer covers it
        let step3 = machine.streamStarted(5, deadline: 2_000)
        #expect(step3 == .arm(at: 2_000)) // earlier: re-armed
        let step4 = machine.streamStarted(7, deadline: 2_000)
        #expect(step4 == .keep)
        let step5 = machine.streamStarted(9, deadline: nil)
        #expect(step5 == .keep)          // no deadline, no timer
        let step6 = machine.streamStarted(11, deadline: 4_000)
        #expect(step6 == .keep)
        machine.streamEnded(7)                                              // answered in time

        let first = machine.sweepTimerFired(now: 2_000)
        #expect(first.expired == [5])
        #expect(first.timer == .arm(at: 4_000))

        // A late sweep finds several due at once: earliest deadline first.
        let second = machine.sweepTimerFired(now: 9_500)
        #expect(second.expired == [11, 1, 3])
        #expect(second.timer == .keep)
        #expect(machine.sweepAt == nil)

        // Nothing left: stream 9 never had a deadline.
        let step7 = machine.sweepTimerFired(now: 1_000_000)
        #expect(step7.expired.isEmpty)
    }

    @Test("Deadlines: equal deadlines expire by stream id; a closed connection arms nothing")
    func deadlinesTieAndClose() {
        var machine = Machine(now: 0)
        _ = machine.streamStarted(9, deadline: 1_000)
        _ = machine.streamStarted(3, deadline: 1_000)
        let step8 = machine.sweepTimerFired(now: 1_000)
        #expect(step8.expired == [3, 9])
        _ = machine.streamStarted(11, deadline: 2_000)
        machine.connectionClosed()
        #expect(machine.sweepAt == nil)
        let step9 = machine.streamStarted(13, deadline: 3_000)
        #expect(step9 == .keep)
        let step10 = machine.sweepTimerFired(now: 10_000)
        #expect(step10.expired.isEmpty)
    }

    @Test("PING: acknowledgements answer ours oldest first; a stray one answers nothing")
    func pingsSentAndAnswered() {
        var machine = Machine(now: 0)
        let step11 = machine.pingAcknowledged()
        #expect(!step11)
        machine.pingSent()
        machine.pingSent()
        #expect(machine.pingsInFlight == 2)
        let step12 = machine.pingAcknowledged()
        #expect(step12)
        let step13 = machine.pingAcknowledged()
        #expect(step13)
        let step14 = machine.pingAcknowledged()
        #expect(!step14)
        machine.pingSent()
        machine.connectionClosed()
        #expect(machine.pingsInFlight == 0)
    }

    @Test("Health check: a busy connection is not pinged; a quiet one is; an answered PING re-arms, an unanswered one closes")
    func healthCheckPingsQuietConnections() {
        var machine = Machine(now: 0)
        #expect(machine.healthCheckDelay(now: 0, idleInterval: 60) == .checkAgain(after: 60))
        #expect(machine.healthCheckDelay(now: 0, idleInterval: 0) == .nothing)   // turned off

        // Input came 20 s into the wait: look again when it will have been quiet for 60 s.
        machine.inputReceived(at: 20_000)
        let step15 = machine.healthTimerFired(now: 60_000, idleInterval: 60)
        #expect(step15 == .checkAgain(after: 20))

        // Quiet for 60 s: PING; answered, the next look is a full interval after the answer.
        let step16 = machine.healthTimerFired(now: 80_000, idleInterval: 60)
        #expect(step16 == .sendPing)
        machine.inputReceived(at: 80_500)
        let step17 = machine.healthPingEnded(answered: true, now: 80_500, idleInterval: 60)
        #expect(step17 == .checkAgain(after: 60))
        let step18 = machine.healthPingTimedOut()
        #expect(step18 == .nothing)  // its timer, if it still fires, does nothing

        // Quiet again, PING unanswered within its timeout: the connection is dead.
        let step19 = machine.healthTimerFired(now: 140_500, idleInterval: 60)
        #expect(step19 == .sendPing)
        let step20 = machine.healthPingTimedOut()
        #expect(step20 == .closeAsDead)
        let step21 = machine.healthPingTimedOut()
        #expect(step21 == .nothing)
    }

    @Test("Health check: a PING that failed (connection gone) stops it; a closed connection is never pinged")
    func healthCheckStops() {
        var machine = Machine(now: 0)
        let step22 = machine.healthTimerFired(now: 60_000, idleInterval: 60)
        #expect(step22 == .sendPing)
        let step23 = machine.healthPingEnded(answered: false, now: 60_001, idleInterval: 60)
        #expect(step23 == .nothing)
        let step24 = machine.healthPingTimedOut()
        #expect(step24 == .nothing)
        let step25 = machine.healthTimerFired(now: 200_000, idleInterval: 60)
        #expect(step25 == .sendPing)
        machine.connectionClosed()
        let step26 = machine.healthPingTimedOut()
        #expect(step26 == .nothing)
        let step27 = machine.healthTimerFired(now: 400_000, idleInterval: 60)
        #expect(step27 == .nothing)
        #expect(machine.healthCheckDelay(now: 400_000, idleInterval: 60) == .nothing)
    }

    @Test("GOAWAY: streams above last-stream-id were not processed (retry); unanswered ones at or below it may have been")
    func goAwayDecidesRetry() {
        var machine = Machine(now: 0)
        // Before any GOAWAY: clean close with a status is an answer; REFUSED_STREAM may be
        // retried; any other reset may have been processed.
        #expect(machine.streamEnd(1, errorCode: 0, answered: true) == .answered)
        #expect(machine.streamEnd(3, errorCode: Machine.refusedStream, answered: false) == .refused)
        #expect(machine.streamEnd(5, errorCode: 0x8, answered: false) == .reset(0x8))
        #expect(machine.streamEnd(5, errorCode: 0x2, answered: true) == .reset(0x2))

        let goAway = Machine.GoAway(code: 0, debug: #"{"reason":"Shutdown"}"#, lastStreamID: 5)
        machine.goAwayReceived(goAway)
        #expect(machine.goAway == goAway)
        #expect(machine.streamEnd(5, errorCode: 0, answered: true) == .answered)              // answered before it left
        #expect(machine.streamEnd(3, errorCode: 0, answered: false) == .inFlightAtGoAway(goAway))
        #expect(machine.streamEnd(5, errorCode: 0x2, answered: false) == .inFlightAtGoAway(goAway))
        #expect(machine.streamEnd(7, errorCode: 0, answered: false) == .notProcessedAtGoAway(goAway))
        #expect(machine.streamEnd(3, errorCode: Machine.refusedStream, answered: false) == .notProcessedAtGoAway(goAway))
        // A reset of an answered stream stays a reset.
        #expect(machine.streamEnd(1, errorCode: 0x8, answered: true) == .reset(0x8))
    }

    @Test("Connection lost: a stream never opened or above GOAWAY's last-stream-id may be resent; an open one may have been processed")
    func connectionLossDecidesRetry() {
        var machine = Machine(now: 0)
        #expect(machine.notProcessedAtLoss(1, opened: false))
        #expect(!machine.notProcessedAtLoss(1, opened: true))
        machine.goAwayReceived(.init(code: 0x2, debug: "", lastStreamID: 3))
        #expect(!machine.notProcessedAtLoss(3, opened: true))
        #expect(machine.notProcessedAtLoss(5, opened: true))
    }

    @Test("Idle (server): GOAWAY after one quiet timeout, close after another; activity postpones both")
    func idleTimeout() {
        var machine = Machine(now: 0)
        let step28 = machine.idleCheck(now: 9_999, timeout: 10)
        #expect(step28 == .nothing)
        machine.activity(at: 5_000)
        let step29 = machine.idleCheck(now: 14_999, timeout: 10)
        #expect(step29 == .nothing)
        let step30 = machine.idleCheck(now: 15_000, timeout: 10)
        #expect(step30 == .sendGoAway)
        let step31 = machine.idleCheck(now: 20_000, timeout: 10)
        #expect(step31 == .nothing)   // the GOAWAY restarted the count
        let step32 = machine.idleCheck(now: 25_000, timeout: 10)
        #expect(step32 == .close)
        // A clock that went backwards (an activity stamped after `now`) decides nothing.
        var other = Machine(now: 50_000)
        let step33 = other.idleCheck(now: 40_000, timeout: 10)
        #expect(step33 == .nothing)
        other.connectionClosed()
        let step34 = other.idleCheck(now: 1_000_000, timeout: 10)
        #expect(step34 == .nothing)
    }
}
