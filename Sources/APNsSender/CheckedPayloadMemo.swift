// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Synchronized

/// A run's memory of the last payload that passed `PayloadCheck`, so a batch that sends one
/// payload to every token parses it once, not once per notification (the JSON check cost about
/// 600 instructions a notification; docs/benchmarks.md, issue 33).
///
/// A payload is known by its storage: the memo keeps the array it checked, so that storage can
/// be neither freed nor reused while the memo compares addresses, and an array's storage is
/// never written while two values share it. The same address, count and push type therefore
/// mean the same bytes, checked under the same limit. Anything else (a payload per line, a
/// payload changed by its caller) is checked in full and becomes the one remembered.
final class CheckedPayloadMemo: Sendable {
    private struct Checked {
        let payload: [UInt8]
        let pushType: APNsPushType?

        func covers(_ notification: APNsNotification) -> Bool {
            pushType == notification.pushType && payload.count == notification.payload.count
                && payload.withUnsafeBufferPointer { mine in
                    notification.payload.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress }
                }
        }
    }

    private let last = Locked<Checked?>(nil)

    init() {}

    /// `notification.localProblem()`, with the payload check skipped when it is the payload
    /// checked last.
    func problem(of notification: APNsNotification) -> String? {
        if last.withLock({ $0?.covers(notification) == true }) { return notification.problemBesidesPayload }
        if let problem = notification.localProblem() { return problem }
        let checked = Checked(payload: notification.payload, pushType: notification.pushType)
        last.withLock { $0 = checked }
        return nil
    }
}
