// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// When and how often to try again. APNs says: never retry the permanent reasons; retry 429
/// after a delay and 5xx with back-off; a request the server did not process is safe to
/// resend. Rapid reconnects look like an attack, so reconnecting backs off too.
public struct APNsRetryPolicy: Sendable {
    /// Attempts per notification for retryable answers (429, 500, 503) and lost connections.
    public var maximumAttempts: Int
    /// First back-off; doubles each attempt, with jitter, up to `maximumDelay`.
    public var baseDelay: Duration
    /// The longest back-off between attempts, however many attempts came before; also caps a
    /// `retry-after` APNs asks for.
    public var maximumDelay: Duration
    /// Consecutive failed connection attempts before the gateway counts as down: sends then
    /// fail at once with the last connect error until the outage back-off has passed.
    public var maximumReconnects: Int
    /// How long the pool waits, once the gateway counts as down, before the next send may try
    /// to connect again; doubles (with jitter) each failed round up to `maximumOutageDelay`.
    /// Tests make both milliseconds.
    public var outageDelay: Duration
    /// The longest wait between connect rounds during an outage: the gateway is tried at least
    /// this often, so a long outage ends about this long after the gateway is back at the latest.
    public var maximumOutageDelay: Duration

    /// A policy with Apple's advice as defaults: 6 attempts from 50 ms up to 5 s, 4 reconnects,
    /// then outage rounds from 1 s up to 60 s.
    public init(maximumAttempts: Int = 6, baseDelay: Duration = .milliseconds(50), maximumDelay: Duration = .seconds(5),
                maximumReconnects: Int = 4, outageDelay: Duration = .seconds(1), maximumOutageDelay: Duration = .seconds(60)) {
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.maximumReconnects = maximumReconnects
        self.outageDelay = outageDelay
        self.maximumOutageDelay = maximumOutageDelay
    }

    /// This policy with one attempt per notification: nothing is sent twice, not after a lost
    /// connection, a timeout or a 5xx. The token diagnosis uses it (apns-protocol.md §12): a
    /// diagnosis request that may have been written is never sent again, as it may have been
    /// delivered in the other environment.
    var singleAttempt: APNsRetryPolicy {
        var policy = self
        policy.maximumAttempts = 1
        return policy
    }

    /// How long to wait before attempt `attempt + 1` (attempt counts from 1).
    public func delay(afterAttempt attempt: Int) -> Duration {
        .seconds(delay(afterAttempt: attempt, jitter: Self.randomJitter()))
    }

    /// `delay(afterAttempt:)` in seconds with the jitter given: what the sender's timers take
    /// (and tests).
    func delay(afterAttempt attempt: Int, jitter: Double) -> Double {
        Self.backOff(first: baseDelay.seconds, cap: maximumDelay.seconds, step: attempt, jitter: jitter)
    }

    /// Seconds the pool waits after `round` failed rounds of connects before trying again
    /// (`ConnectionPool`'s outage back-off).
    func outageBackOff(round: Int, jitter: Double = randomJitter()) -> Double {
        Self.backOff(first: outageDelay.seconds, cap: maximumOutageDelay.seconds, step: round, jitter: jitter)
    }

    /// The one back-off formula, for resends and reconnects alike: `first` doubled with every
    /// step after the first, capped at `cap`, times `jitter` (0.5 to 1: clients that failed
    /// together do not come back together). Steps past 21 double no more (no overflow).
    static func backOff(first: Double, cap: Double, step: Int, jitter: Double) -> Double {
        min(cap, first * Double(1 << min(max(step, 1) - 1, 20))) * jitter
    }

    /// A jitter factor for `backOff`.
    static func randomJitter() -> Double { Double.random(in: 0.5...1.0) }
}
