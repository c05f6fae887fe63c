// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
@testable import APNsSender
import Testing

/// A run checks a batch's one payload once (issue 33), and still catches every payload that is
/// not the one it checked: a payload is known by its storage, never by its length alone.
@Suite("CheckedPayloadMemo")
struct CheckedPayloadMemoTests {
    private static let token = try! APNsDeviceToken(bytes: Array(repeating: 0xab, count: 32))

    private static func notification(_ payload: [UInt8], pushType: APNsPushType? = .alert, collapseID: String? = nil) -> APNsNotification {
        var notification = APNsNotification(token: token, payload: payload)
        notification.pushType = pushType
        notification.collapseID = collapseID
        return notification
    }

    @Test("The checked payload passes again; a bad payload of the same length in other storage is refused")
    func knownByStorage() {
        let memo = CheckedPayloadMemo()
        let good = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        #expect(memo.problem(of: Self.notification(good)) == nil)
        #expect(memo.problem(of: Self.notification(good)) == nil)
        // The same length, not JSON: other storage, so it is checked in full.
        let bad = Array(String(repeating: "x", count: good.count).utf8)
        #expect(memo.problem(of: Self.notification(bad)) == "the payload is not a JSON object")
        // A copy that was changed has storage of its own.
        var changed = good
        changed[0] = UInt8(ascii: "[")
        #expect(memo.problem(of: Self.notification(changed)) == "the payload is not a JSON object")
        #expect(memo.problem(of: Self.notification(good)) == nil)
    }

    @Test("A known payload under another push type's limit is checked again, and the collapse id is always checked")
    func pushTypeAndCollapseID() {
        let memo = CheckedPayloadMemo()
        // 4,096 bytes and under 5,120: within VoIP's limit, over an alert's.
        let big = Array(#"{"aps":{},"pad":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 4_200) + Array(#""}"#.utf8)
        #expect(memo.problem(of: Self.notification(big, pushType: .voip)) == nil)
        #expect(memo.problem(of: Self.notification(big, pushType: .alert))?.contains("APNs takes at most 4096") == true)
        let small = Array(#"{"aps":{}}"#.utf8)
        #expect(memo.problem(of: Self.notification(small)) == nil)
        #expect(memo.problem(of: Self.notification(small, collapseID: String(repeating: "c", count: 65))) == "the collapse id is longer than 64 bytes")
    }
}
