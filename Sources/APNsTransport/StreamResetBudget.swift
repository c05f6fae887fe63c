// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The rapid-reset defence of a server connection (CVE-2023-44487): a client that opens
/// streams and resets them before they are answered makes the server start work it then
/// throws away, at no cost to itself. Such resets draw on a token bucket (`burst` at once,
/// refilled `perSecond`); an empty bucket ends the connection with GOAWAY ENHANCE_YOUR_CALM.
///
/// A reset of a stream already answered or closed is free: widely used clients (async-http-client
/// among them) send RST_STREAM(CANCEL) for streams whose answer they have read, and nghttp2's own
/// limiter, which counts every RST_STREAM, ended their connections (docs/mock-gateway.md, the
/// table of clients in the wild).
/// The figures are nghttp2's defaults (1,000 at once, 33 a second), so the attack is ended as
/// soon as before. Loop thread only, one per connection.
struct StreamResetBudget {
    static let burst = 1000
    static let perSecond = 33

    private var tokens = Double(Self.burst)
    private var refilledAt: UInt64
    /// Resets of open, unanswered streams (counted), and of answered or closed ones (free).
    private(set) var counted = 0
    private(set) var free = 0

    init(now: UInt64) { refilledAt = now }

    /// A reset of a stream already answered or closed.
    mutating func freeReset() { free += 1 }

    /// A reset of an open, unanswered stream at `now` (milliseconds); false when the budget
    /// is spent and the connection must end.
    mutating func spend(now: UInt64) -> Bool {
        counted += 1
        if now > refilledAt {
            tokens = min(Double(Self.burst), tokens + Double(now - refilledAt) * Double(Self.perSecond) / 1000)
            refilledAt = now
        }
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
