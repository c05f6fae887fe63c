// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// When and how often to try again. APNs says: never retry the permanent reasons; retry 429
/// after a delay and 5xx with back-off; a request the server did not process is safe to
/// resend. Rapid reconnects look like an attack, so reconnecting backs off too.
public struct APNsRetryPolicy: Sendable {
    /// Attempts per notification for retryable answers (429, 500, 503) and lost connections.
    public var maximumAttempts: Int
    /// First back-off; doubles each attempt, with jitter, up to `maximumDelay`.
    public var baseDelay: Double
    public var maximumDelay: Double
    /// Consecutive failed connection attempts before the gateway counts as down: sends then
    /// fail at once with the last connect error until the outage back-off has passed.
    public var maximumReconnects: Int
    /// Seconds the pool waits, once the gateway counts as down, before the next send may try
    /// to connect again; doubles (with jitter) each failed round up to `maximumOutageDelay`.
    /// Tests make both milliseconds.
    public var outageDelay: Double
    public var maximumOutageDelay: Double

    public init(maximumAttempts: Int = 6, baseDelay: Double = 0.05, maximumDelay: Double = 5, maximumReconnects: Int = 4,
                outageDelay: Double = 1, maximumOutageDelay: Double = 60) {
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.maximumReconnects = maximumReconnects
        self.outageDelay = outageDelay
        self.maximumOutageDelay = maximumOutageDelay
    }

    /// Seconds to wait before attempt `attempt + 1` (attempt counts from 1).
    public func delay(afterAttempt attempt: Int) -> Double {
        let exponential = baseDelay * Double(1 << min(attempt - 1, 20))
        let capped = min(maximumDelay, exponential)
        return capped * Double.random(in: 0.5...1.0)
    }
}
