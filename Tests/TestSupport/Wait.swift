// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Bounded waits for an event a test cannot be called back for (a file appearing, a port
/// opening, a line in a child's log, a count in a database or a stats answer). They poll with
/// `Task.sleep`, which gives the thread back to the cooperative pool between looks; the bound
/// is a safety net, never a measure: tests assert on the event, not on how long it took. This
/// is the one polling loop of the tests: a test that waits for something calls it (or awaits
/// an event: a continuation, a `Gate`, a child's exit) instead of sleeping.
public enum Wait {
    /// How often a condition is looked at unless the caller says otherwise: cheap looks (a
    /// counter, a file's size). A look that runs a process (curl, psql) passes a longer one.
    public static let defaultInterval = Duration.milliseconds(20)

    /// Looks at `condition` every `interval` until it holds (true), `alive` turns false or
    /// `seconds` pass (then one last look decides).
    public static func until(seconds: Double = 30, every interval: Duration = defaultInterval, while alive: () -> Bool = { true },
                             _ condition: () async throws -> Bool) async rethrows -> Bool {
        try await reading(seconds: seconds, every: interval, while: alive, condition) { $0 }
    }

    /// Reads `read` every `interval` until `done` holds of what it gave, `alive` turns false or
    /// `seconds` pass (then one last read), and returns the last value read: the caller asserts
    /// on it and shows it when the wait ran out.
    public static func reading<Value>(seconds: Double = 30, every interval: Duration = defaultInterval, while alive: () -> Bool = { true },
                                      _ read: () async throws -> Value, until done: (Value) -> Bool) async rethrows -> Value {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let value = try await read()
            if done(value) { return value }
            if !alive() { break }
            try? await Task.sleep(for: interval)
        }
        return try await read()
    }

    /// Reads `read` until its value has not changed for `quiet`, at most `seconds`, and returns
    /// the last value: for a writer that catches up with no event to say it is done (a gateway
    /// whose held answers record their requests after their delay, even for streams the client
    /// reset). The quiet period is a judgement about the writer, so keep it generous.
    public static func settled<Value: Equatable>(quiet: Duration, seconds: Double = 120, every interval: Duration = .milliseconds(250),
                                                 _ read: () async throws -> Value) async rethrows -> Value {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
        var last = try await read()
        var unchangedSince = clock.now
        while clock.now < deadline, clock.now - unchangedSince < quiet {
            try? await Task.sleep(for: interval)
            let value = try await read()
            if value != last {
                last = value
                unchangedSince = clock.now
            }
        }
        return last
    }

    /// Reads `probe` until it gives a value (bounded as `until`); nil when it never did.
    public static func value<Value>(seconds: Double = 30, every interval: Duration = defaultInterval, while alive: () -> Bool = { true },
                                    _ probe: () async throws -> Value?) async rethrows -> Value? {
        try await reading(seconds: seconds, every: interval, while: alive, probe) { $0 != nil }
    }
}
