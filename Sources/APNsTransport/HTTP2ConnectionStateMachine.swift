// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Synchronized

/// The decisions of one HTTP/2 connection that need no socket and no nghttp2: when requests
/// time out, what a PING and the idle health check do next, which streams a GOAWAY failed
/// and which may be retried, when a quiet server connection is told to go away.
///
/// A value type whose mutating methods return what to do (arm the sweep timer at a time, time
/// these streams out, send a PING, close), in the shape of async-http-client's
/// `HTTPRequestStateMachine` and swift-nio-http2's connection state machine: `HTTP2Session`
/// and its roles carry the actions out against nghttp2 and the loop's timers, and these rules
/// are unit-tested on their own (`HTTP2ConnectionStateMachineTests`). Times are milliseconds
/// of `EventLoop.nowMillis()` passed in by the caller, so a test chooses its clock.
package struct HTTP2ConnectionStateMachine: Sendable {
    package init(now: UInt64) {
        lastInput = now
        lastActivity = now
    }

    /// True once the connection closed: nothing is armed or sent any more.
    package private(set) var isClosed = false

    /// The connection is gone: no deadline, no health check, no idle timeout is left to run.
    package mutating func connectionClosed() {
        isClosed = true
        deadlines.removeAll()
        sweepAt = nil
        pingsInFlight = 0
        healthPingOutstanding = false
    }

    // MARK: request deadlines

    /// Streams that have a deadline, and the deadline (our own requests' streams: ids in
    /// order, `SequentialKeyTable`).
    private var deadlines = SequentialKeyTable<UInt64>(step: 2)
    /// When the session's one sweep timer fires (nil: not armed). One timer per session, not
    /// one per request: at 100,000 requests a second the loop's timers would churn otherwise.
    package private(set) var sweepAt: UInt64?

    /// What to do with the sweep timer.
    package enum SweepTimer: Equatable, Sendable {
        /// Leave it as it is (armed early enough, or nothing left to wait for).
        case keep
        /// Cancel the armed one, if any, and arm it for this time.
        case arm(at: UInt64)
    }

    /// A request's stream starts; `deadline` (nil: none) is when it counts as unanswered.
    package mutating func streamStarted(_ id: Int32, deadline: UInt64?) -> SweepTimer {
        guard let deadline, !isClosed else { return .keep }
        deadlines.insert(deadline, for: Int(id))
        return arm(deadline)
    }

    /// A request's stream ended (answered, reset, cancelled, given up): its deadline is void.
    package mutating func streamEnded(_ id: Int32) {
        if !deadlines.isEmpty { deadlines.removeValue(for: Int(id)) }
    }

    /// The sweep timer fired at `now`: the streams past their deadline, earliest deadline
    /// first (they leave the book; the caller gives them up), and the timer for the earliest
    /// deadline left.
    package mutating func sweepTimerFired(now: UInt64) -> (expired: [Int32], timer: SweepTimer) {
        sweepAt = nil
        var expired: [(id: Int32, deadline: UInt64)] = []
        var earliest: UInt64 = .max
        for (key, deadline) in deadlines.entries {
            // Keys are stream ids, put in as `Int32`.
            if deadline <= now { expired.append((Int32(truncatingIfNeeded: key), deadline)) } else { earliest = min(earliest, deadline) }
        }
        expired.sort { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        for stream in expired { deadlines.removeValue(for: Int(stream.id)) }
        return (expired.map(\.id), earliest == .max ? .keep : arm(earliest))
    }

    private mutating func arm(_ deadline: UInt64) -> SweepTimer {
        if let sweepAt, sweepAt <= deadline { return .keep }
        sweepAt = deadline
        return .arm(at: deadline)
    }

    // MARK: PING

    /// PINGs sent and not acknowledged yet. The peer acknowledges in order (RFC 9113 section
    /// 6.7), so an acknowledgement answers the oldest.
    package private(set) var pingsInFlight = 0

    package mutating func pingSent() { pingsInFlight += 1 }

    /// A PING acknowledgement arrived: true when it answers one of ours (the oldest), false
    /// for one we never asked for.
    package mutating func pingAcknowledged() -> Bool {
        guard pingsInFlight > 0 else { return false }
        pingsInFlight -= 1
        return true
    }

    // MARK: idle health check (client)

    /// When the peer last sent anything: the health check pings only a quiet connection.
    package private(set) var lastInput: UInt64
    /// The health check's PING is out and unanswered.
    private var healthPingOutstanding = false

    package mutating func inputReceived(at now: UInt64) { lastInput = now }

    /// What the health check does next.
    package enum HealthCheck: Equatable, Sendable {
        /// Look again after this many seconds (the connection has not been quiet long enough).
        case checkAgain(after: Double)
        /// Send a PING and look again `HTTP2HealthCheck.timeout` seconds later.
        case sendPing
        /// The PING went unanswered: close the connection as dead.
        case closeAsDead
        /// Nothing (closed, or the PING was answered or failed already).
        case nothing
    }

    /// When the health check first looks, or looks again: once the connection will have been
    /// quiet for `idleInterval` seconds.
    package func healthCheckDelay(now: UInt64, idleInterval: Double) -> HealthCheck {
        guard !isClosed, idleInterval > 0 else { return .nothing }
        let quietFor = Double(now &- lastInput) / 1000
        return .checkAgain(after: max(0.001, idleInterval - quietFor))
    }

    /// The health check's timer fired: ping a connection quiet for `idleInterval` seconds,
    /// else look again when it will have been.
    package mutating func healthTimerFired(now: UInt64, idleInterval: Double) -> HealthCheck {
        guard !isClosed else { return .nothing }
        let quietFor = Double(now &- lastInput) / 1000
        guard quietFor >= idleInterval else { return healthCheckDelay(now: now, idleInterval: idleInterval) }
        healthPingOutstanding = true
        return .sendPing
    }

    /// The health check's PING was acknowledged (`answered`) or failed (the connection closed,
    /// nghttp2 refused it): look again later, or stop.
    package mutating func healthPingEnded(answered: Bool, now: UInt64, idleInterval: Double) -> HealthCheck {
        healthPingOutstanding = false
        return answered ? healthCheckDelay(now: now, idleInterval: idleInterval) : .nothing
    }

    /// The health check's PING timeout passed: dead if the PING is still unanswered.
    package mutating func healthPingTimedOut() -> HealthCheck {
        guard healthPingOutstanding, !isClosed else { return .nothing }
        healthPingOutstanding = false
        return .closeAsDead
    }

    // MARK: GOAWAY

    /// The peer's GOAWAY: its error code, debug data (often a JSON reason), and the last
    /// stream it may have processed.
    package struct GoAway: Equatable, Sendable {
        package var code: UInt32
        package var debug: String
        package var lastStreamID: Int32

        package init(code: UInt32, debug: String, lastStreamID: Int32) {
            self.code = code
            self.debug = debug
            self.lastStreamID = lastStreamID
        }
    }

    package private(set) var goAway: GoAway?

    package mutating func goAwayReceived(_ goAway: GoAway) { self.goAway = goAway }

    /// RST_STREAM / GOAWAY error code REFUSED_STREAM (RFC 9113 section 7): the peer did not
    /// process the stream.
    package static let refusedStream: UInt32 = 0x7

    /// How a request's stream ended, and whether a resend may duplicate it.
    package enum StreamEnd: Equatable, Sendable {
        /// Closed cleanly with a response.
        case answered
        /// The peer said GOAWAY and either refused the stream or never reached it (above its
        /// last-stream-id): not processed, may be retried.
        case notProcessedAtGoAway(GoAway)
        /// GOAWAY came while the stream was within the peer's last-stream-id and unanswered:
        /// it may have been processed.
        case inFlightAtGoAway(GoAway)
        /// REFUSED_STREAM without GOAWAY: not processed, may be retried.
        case refused
        /// Reset with this error code: the peer may have processed it.
        case reset(UInt32)
    }

    /// Stream `id` closed with `errorCode`; `answered`: a response status arrived on it.
    package func streamEnd(_ id: Int32, errorCode: UInt32, answered: Bool) -> StreamEnd {
        if errorCode == 0 && answered { return .answered }
        let refused = errorCode == Self.refusedStream
        if let goAway, refused || !answered {
            return refused || id > goAway.lastStreamID ? .notProcessedAtGoAway(goAway) : .inFlightAtGoAway(goAway)
        }
        return refused ? .refused : .reset(errorCode)
    }

    /// The connection ended with stream `id` unanswered; `opened`: its HEADERS went out (it
    /// was not still queued behind MAX_CONCURRENT_STREAMS). True when the peer certainly never
    /// processed it (above GOAWAY's last-stream-id, or never opened), so it may be resent.
    package func notProcessedAtLoss(_ id: Int32, opened: Bool) -> Bool {
        if let goAway, id > goAway.lastStreamID { return true }
        return !opened
    }

    // MARK: idle timeout (server)

    /// The last request frame or answer (see `HTTP2Settings.idleTimeout`).
    package private(set) var lastActivity: UInt64
    private var idleGoAwaySent = false

    package mutating func activity(at now: UInt64) { lastActivity = now }

    /// What a quiet server connection gets.
    package enum IdleAction: Equatable, Sendable {
        case nothing
        /// GOAWAY (NO_ERROR): no new streams; the session closes once none is open.
        case sendGoAway
        /// Still idle one more timeout after its GOAWAY (a stream left open and silent): close.
        case close
    }

    /// The server's idle sweep at `now`: past `timeout` seconds without a request frame or an
    /// answer, GOAWAY; past another `timeout` after that, close.
    package mutating func idleCheck(now: UInt64, timeout: Double) -> IdleAction {
        guard !isClosed, now >= lastActivity, Double(now - lastActivity) >= timeout * 1000 else { return .nothing }
        if idleGoAwaySent { return .close }
        idleGoAwaySent = true
        lastActivity = now
        return .sendGoAway
    }
}
