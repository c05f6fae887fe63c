// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation
import Testing

@Suite("LiveActivityPayload: the aps keys ActivityKit reads")
struct LiveActivityPayloadTests {
    func aps(_ payload: LiveActivityPayload) throws -> [String: Any] {
        let root = try JSONSerialization.jsonObject(with: Data(payload.json())) as? [String: Any]
        return try #require(root?["aps"] as? [String: Any])
    }

    @Test("A start carries attributes, the alert and input-push-token; the timestamp is filled in")
    func start() throws {
        var start = LiveActivityPayload(event: .start, contentState: try #require(JSONValue(parsing: Array(#"{"score": 0, "team": "X"}"#.utf8))))
        start.attributesType = "MatchAttributes"
        start.attributes = .object([("home", .string("A"))])
        start.alertTitle = "Kickoff"
        start.inputPushToken = true
        start.staleDate = Date(timeIntervalSince1970: 1_900_000_000)
        #expect(start.problem() == nil)
        let aps = try aps(start)
        #expect(aps["event"] as? String == "start")
        #expect(abs((aps["timestamp"] as? Int ?? 0) - Int(Date().timeIntervalSince1970)) < 60)
        #expect((aps["content-state"] as? [String: Any])?["team"] as? String == "X")
        #expect(aps["attributes-type"] as? String == "MatchAttributes")
        #expect((aps["attributes"] as? [String: Any])?["home"] as? String == "A")
        #expect((aps["alert"] as? [String: Any])?["title"] as? String == "Kickoff")
        #expect(aps["input-push-token"] as? Int == 1)
        #expect(aps["stale-date"] as? Int == 1_900_000_000)
    }

    @Test("An end carries the dismissal date; what belongs to a start is refused elsewhere, as is a start without attributes")
    func problems() throws {
        var end = LiveActivityPayload(event: .end, contentState: .object([]))
        end.dismissalDate = Date(timeIntervalSince1970: 1_900_000_100)
        #expect(end.problem() == nil)
        #expect(try aps(end)["dismissal-date"] as? Int == 1_900_000_100)
        end.attributesType = "X"
        #expect(end.problem()?.contains("belong to a start") == true)
        #expect(LiveActivityPayload(event: .start, contentState: .object([])).problem()?.contains("attributes-type") == true)
        #expect(LiveActivityPayload(event: .update, contentState: .array([])).problem() == "the content state must be a JSON object")
        #expect(JSONValue(parsing: Array("{nope".utf8)) == nil)
        #expect(JSONValue(parsing: Array(#"{"b":true,"n":1.5}"#.utf8))?.serialized() == Array(#"{"b":true,"n":1.5}"#.utf8))
    }
}
