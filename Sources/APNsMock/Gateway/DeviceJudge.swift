// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation
import Synchronized

/// What a device would do with a notification the gateway accepted, as lint sees it
/// (docs/lint.md): the rules that tripped and the mark ("dropped: ...", "update ignored: ...").
/// Lint never changes the answer: APNs answers these 200, and so does the mock.
package struct DeviceVerdict: Sendable, Equatable {
    /// `APNsLintReport.deviceMark`: nil when nothing a device does differs from what was meant.
    package let mark: String?
    /// The ids of every rule that tripped, errors first.
    package let rules: [String]

    package init(_ report: APNsLintReport) {
        mark = report.deviceMark
        rules = report.findings.map(\.rule.id)
    }
}

extension InboxEvent {
    /// The lint verdict the inbox shows: the gateway's, or for a notification whose lint the
    /// gateway left to the inbox (`lintDeferred`), worked out now, when someone reads the
    /// entry, off the gateway's event loop. Deferred only where no state is needed (not Live
    /// Activities, whose timestamps the gateway judges as they arrive), so both give the same.
    package var deviceVerdict: DeviceVerdict? {
        if let device { return device }
        guard lintDeferred else { return nil }
        return DeviceVerdict(APNsPayloadLint.lint(APNsLintRequest(
            payload: payload, pushType: pushType.flatMap(APNsPushType.init(rawValue:)), topic: topic,
            priority: priority.flatMap(Int.init) ?? APNsPriority.immediate.rawValue, collapseID: collapseID, now: time)))
    }
}

/// Lints accepted notifications for the record and the inbox, and remembers the newest Live
/// Activity `timestamp` per token, so an older update is marked "update ignored" as
/// ActivityKit would ignore it (apns-protocol.md §8, §11.2).
///
/// Bounded: at most `trackedActivities` tokens are remembered (about 1 MB), the oldest
/// forgotten first; a forgotten token's next update is judged without a previous timestamp.
/// Its own lock (`Locked`), taken inside the handler's and never the other way round.
package final class DeviceJudge: Sendable {
    package static let defaultTrackedActivities = 10_000

    private struct State {
        var newest: [String: Int] = [:]
        /// Tokens in the order first seen, the oldest first: the one to forget next.
        var order = FIFO<String>()
        /// The verdict of the request `ProviderAPIHandler.decide` just accepted, taken by
        /// `handle` under the handler's lock for the inbox (so the two never see different verdicts).
        var pending: DeviceVerdict?

        /// Keeps the newest timestamp (an ignored older update does not move it back).
        mutating func remember(_ key: String, _ timestamp: Int, limit: Int) {
            if let known = newest[key] {
                if timestamp > known { newest[key] = timestamp }
                return
            }
            newest[key] = timestamp
            order.append(key)
            if newest.count > limit, let oldest = order.popFirst() { newest[oldest] = nil }
        }
    }

    private let trackedActivities: Int
    private let state = Locked(State())

    package init(trackedActivities: Int = DeviceJudge.defaultTrackedActivities) {
        self.trackedActivities = max(1, trackedActivities)
    }

    package func judge(payload: [UInt8], token: APNsDeviceToken, topic: String?, pushType: APNsPushType?, priority: Int, collapseID: String?,
                       now: Date = Date()) -> DeviceVerdict {
        let key = token.hex
        let previous = pushType == .liveactivity ? state.withLock { $0.newest[key] } : nil
        let report = APNsPayloadLint.lint(APNsLintRequest(payload: payload, pushType: pushType, topic: topic, priority: priority,
                                                          collapseID: collapseID, previousTimestamp: previous, now: now))
        let verdict = DeviceVerdict(report)
        let limit = trackedActivities
        let timestamp = pushType == .liveactivity ? report.liveActivityTimestamp : nil
        state.withLock {
            if let timestamp { $0.remember(key, timestamp, limit: limit) }
            $0.pending = verdict
        }
        return verdict
    }

    /// The verdict `judge` made last, once.
    package func takePending() -> DeviceVerdict? {
        state.withLock { state in
            defer { state.pending = nil }
            return state.pending
        }
    }

    /// How many activity tokens are remembered (tests check the bound).
    package var trackedCount: Int { state.withLock { $0.newest.count } }
}
