// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Bounded waits for an event a test cannot be called back for (a file appearing, a port
/// opening, a line in a child's log). They poll with `Task.sleep`, which gives the thread back
/// to the cooperative pool between looks; the bound is a safety net, never a measure: tests
/// assert on the event, not on how long it took.
public enum Wait {
    /// Polls `condition` every 20 ms until it holds (true), `alive` turns false or `seconds`
    /// pass (then one last look decides).
    public static func until(seconds: Double = 30, while alive: @Sendable () -> Bool = { true },
                             _ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            if !alive() { break }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return condition()
    }
}
