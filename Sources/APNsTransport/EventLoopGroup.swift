// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

extension EventLoop {
    /// The most loops `sharedLoops(count:)` hands out: one per core the process may use.
    package static var coreLimit: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Up to `count` process-wide loops, never more than `coreLimit`: `shared` first, then the
    /// others, kept for the life of the process (like `shared`).
    ///
    /// Why: one loop is one thread, so every connection on it shares one core; a sender with
    /// several connections puts each on the next of these loops to use several cores. More
    /// loops than cores would only add context switches. The caller never shuts these down.
    package static func sharedLoops(count: Int) -> [EventLoop] {
        let wanted = min(max(1, count), coreLimit)
        return wanted == 1 ? [.shared] : Array(sharedLoopsPerCore.prefix(wanted))
    }

    /// `shared` and one loop for each further core, made together the first time more than one
    /// loop is asked for (a `static let` is initialized once, thread-safely) and never changed:
    /// an immutable array of Sendable loops needs no lock. An idle loop costs a thread blocked
    /// in its wait and three descriptors.
    private static let sharedLoopsPerCore: [EventLoop] =
        [.shared] + (1..<coreLimit).map { EventLoop(name: "transport.loop.\($0)") }
}
