// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// Seconds from input (a flag, a peer's `retry-after`, a computed back-off) turned into the
/// integers timers and sleeps take. A `Double` can be negative, NaN or 1e300, and a plain
/// `UInt64(seconds * 1e9)` traps on each; here negative and NaN are 0 and anything past
/// `longest` is `longest`, so no conversion traps, whatever the input.
package enum TimerSeconds {
    /// About 31 years: longer than any wait means anything, short enough that nanoseconds
    /// (1e18) fit UInt64 and Int64.
    package static let longest = 1e9

    /// `seconds` within 0...`longest` (NaN: 0).
    package static func clamped(_ seconds: Double) -> Double {
        seconds.isNaN ? 0 : min(max(0, seconds), longest)
    }

    package static func nanoseconds(_ seconds: Double) -> UInt64 { UInt64(clamped(seconds) * 1_000_000_000) }

    package static func milliseconds(_ seconds: Double) -> UInt64 { UInt64(clamped(seconds) * 1000) }

    /// "10 seconds", "1 second", "2.5 seconds": a timeout in a sentence, whole when it is one.
    package static func text(_ value: Double) -> String {
        guard let whole = Int(exactly: value) else { return "\(value) seconds" }
        return "\(whole) second\(whole == 1 ? "" : "s")"
    }
}
