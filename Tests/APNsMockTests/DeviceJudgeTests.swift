// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import APNsProtocol
import Foundation
import Testing

/// The mock's per-token memory of Live Activity timestamps: an older update is "update
/// ignored", an ignored one does not move the clock back, and the memory is bounded.
@Suite struct DeviceJudgeTests {
    static let now = Date(timeIntervalSince1970: 1_764_000_000)

    static func update(_ timestamp: Int) -> [UInt8] {
        Array(#"{"aps": {"timestamp": \#(timestamp), "event": "update", "content-state": {"score": 1}}}"#.utf8)
    }

    static func token(_ n: Int) throws -> APNsDeviceToken {
        try APNsDeviceToken(bytes: withUnsafeBytes(of: UInt64(n).bigEndian, Array.init) + [UInt8](repeating: 1, count: 24))
    }

    func judge(_ judge: DeviceJudge, _ timestamp: Int, token: APNsDeviceToken) -> DeviceVerdict {
        judge.judge(payload: Self.update(timestamp), token: token, topic: "com.example.app.push-type.liveactivity", pushType: .liveactivity,
                    priority: 5, collapseID: nil, now: Self.now)
    }

    @Test func olderUpdateIsIgnored() throws {
        let judge = DeviceJudge()
        let a = try Self.token(1), b = try Self.token(2)
        #expect(self.judge(judge, 1_764_000_000, token: a).rules == [])
        let older = self.judge(judge, 1_763_999_900, token: a)
        #expect(older.rules == ["la-timestamp-stale"])
        #expect(older.mark?.hasPrefix("update ignored: aps.timestamp 1763999900 is older than 1764000000") == true)
        // The ignored update did not move the clock back; another token has its own.
        #expect(self.judge(judge, 1_763_999_950, token: a).rules == ["la-timestamp-stale"])
        #expect(self.judge(judge, 1_763_999_900, token: b).rules == [])
        #expect(judge.takePending()?.rules == [], "the last verdict is handed to the inbox once")
        #expect(judge.takePending() == nil)
    }

    @Test func memoryIsBounded() throws {
        let judge = DeviceJudge(trackedActivities: 3)
        for n in 1...5 { _ = self.judge(judge, 1_764_000_000, token: try Self.token(n)) }
        #expect(judge.trackedCount == 3)
        // Tokens 1 and 2 were forgotten (oldest first): their older updates are judged afresh.
        #expect(self.judge(judge, 1_763_000_000, token: try Self.token(1)).rules == [])
        #expect(self.judge(judge, 1_763_000_000, token: try Self.token(5)).rules == ["la-timestamp-stale"])
        #expect(judge.trackedCount == 3)
    }
}
