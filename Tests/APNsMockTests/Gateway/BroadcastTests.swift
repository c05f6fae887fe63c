// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import APNsProtocol
import APNsSender
import APNsTransport
import Foundation
import Testing
import TestSupport

/// The mock's channel management and broadcast endpoints (apns-protocol.md §8), request by
/// request, as Apple documents them.
@Suite("Mock gateway: broadcast channels and broadcasts")
struct BroadcastTests {
    func send(_ client: HTTP2Client, _ method: String, _ path: String, _ headers: [(String, String)] = [], body: String = "") async throws -> HTTP2Response {
        try await client.send(HTTP2Request(method: method, path: path, headers: headers.map { (name: $0.0, value: $0.1) }, body: Array(body.utf8)),
                              timeout: 10)
    }

    @Test("Channel management: create, read, list, delete, and every reason a bad request gets")
    func management() async throws {
        let f = try GatewayFixture(channelLimit: 2)
        let manage = try await f.client(try f.identity(.universal), to: f.channelsEndpoint)
        let path = "/1/apps/com.example.app/channels"
        let requestID = "123e4567-e89b-12d3-a456-426614174000"
        let created = try await send(manage, "POST", path, [("apns-request-id", requestID)], body: #"{"message-storage-policy": 0, "push-type": "LiveActivity"}"#)
        #expect(created.status == 201)
        #expect(created.header("apns-request-id") == requestID)
        let id = try #require(created.header("apns-channel-id"))
        #expect(Data(base64Encoded: id) != nil)

        let read = try await send(manage, "GET", path, [("apns-channel-id", id)])
        #expect(read.status == 200)
        #expect((try JSONSerialization.jsonObject(with: Data(read.body)) as? [String: Any])?["message-storage-policy"] as? Int == 0)
        let second = try await send(manage, "POST", path, body: #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#)
        #expect(second.status == 201)
        let full = try await send(manage, "POST", path, body: #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#)
        #expect(full.status == 400 && reason(full) == "CannotCreateChannelConfig", "the channel limit")
        let list = try await send(manage, "GET", "/1/apps/com.example.app/all-channels")
        #expect((try JSONSerialization.jsonObject(with: Data(list.body)) as? [String: Any])?["channels"] as? [String] == [id, second.header("apns-channel-id")!])

        let cases: [(String, Int, String, HTTP2Response)] = [
            ("not JSON", 400, "InvalidRequest", try await send(manage, "POST", path, body: "policy=1")),
            ("policy 2", 400, "InvalidPolicy", try await send(manage, "POST", path, body: #"{"message-storage-policy": 2, "push-type": "LiveActivity"}"#)),
            ("no push type", 400, "MissingPushType", try await send(manage, "POST", path, body: #"{"message-storage-policy": 1}"#)),
            ("push type", 400, "InvalidPushType", try await send(manage, "POST", path, body: #"{"message-storage-policy": 1, "push-type": "Alert"}"#)),
            ("no channel id", 400, "MissingChannelId", try await send(manage, "GET", path)),
            ("bad channel id", 400, "BadChannelId", try await send(manage, "GET", path, [("apns-channel-id", "not base64!")])),
            ("unknown channel", 400, "ChannelNotRegistered", try await send(manage, "GET", path, [("apns-channel-id", "bm9uZQ==")])),
            ("bad request id", 400, "InvalidRequest", try await send(manage, "GET", path, [("apns-channel-id", id), ("apns-request-id", "x")])),
            ("method", 405, "MethodNotAllowed", try await send(manage, "PUT", path)),
            ("path", 404, "BadPath", try await send(manage, "GET", "/1/apps/com.example.app/everything")),
            ("device path on the management port", 404, "BadPath", try await send(manage, "POST", "/3/device/\(sampleToken)", body: "{}")),
        ]
        for (name, status, expected, response) in cases {
            #expect(response.status == status && reason(response) == expected, "\(name): \(response.status) \(reason(response) ?? "")")
        }
        let deleted = try await send(manage, "DELETE", path, [("apns-channel-id", id)])
        #expect(deleted.status == 204)
        #expect(reason(try await send(manage, "GET", path, [("apns-channel-id", id)])) == "ChannelNotRegistered")
        #expect(try await send(manage, "POST", path, body: #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#).status == 201,
                "a deleted channel frees its place")

        // The provider port serves no management API; credentials must cover the bundle id.
        let provider = try await f.client(try f.identity(.universal))
        #expect(reason(try await send(provider, "GET", "/1/apps/com.example.app/all-channels")) == "BadPath")
        let foreign = try await send(manage, "GET", "/1/apps/com.other.app/all-channels")
        #expect(foreign.status == 400 && reason(foreign) == "TopicDisallowed")
    }

    @Test("Broadcasts: accepted and recorded; push type, priority, expiration vs storage policy, size and channel reasons")
    func broadcasts() async throws {
        let f = try GatewayFixture()
        let manage = try await f.client(nil, to: f.channelsEndpoint)
        let bearer = ("authorization", "bearer \(try f.token())")
        let create = { (policy: Int) async throws -> String in
            let answer = try await self.send(manage, "POST", "/1/apps/com.example.app/channels", [bearer],
                                             body: #"{"message-storage-policy": \#(policy), "push-type": "LiveActivity"}"#)
            return try #require(answer.header("apns-channel-id"))
        }
        let stored = try await create(1)
        let unstored = try await create(0)
        let provider = try await f.client(nil)
        let path = "/4/broadcasts/apps/com.example.app"
        let update = #"{"aps":{"timestamp":1,"event":"update","content-state":{"score":1}}}"#
        func broadcast(_ channel: String?, _ headers: [(String, String)] = [("apns-push-type", "liveactivity")], body: String = update) async throws -> HTTP2Response {
            try await send(provider, "POST", path, [bearer] + (channel.map { [("apns-channel-id", $0)] } ?? []) + headers, body: body)
        }
        let accepted = try await broadcast(stored)
        #expect(accepted.status == 200)
        let apnsID = try #require(accepted.header("apns-id"))
        #expect(try await broadcast(unstored, [("apns-push-type", "liveactivity"), ("apns-expiration", "0")]).status == 200)
        #expect(try await broadcast(stored, [("apns-push-type", "liveactivity"), ("apns-priority", "5")], body: String(repeating: " ", count: 5100) + "{}").status == 200,
                "5,120 bytes are allowed")
        let cases: [(String, Int, String, HTTP2Response)] = [
            ("no channel", 400, "MissingChannelId", try await broadcast(nil)),
            ("unknown channel", 400, "ChannelNotRegistered", try await broadcast("bm9uZQ==")),
            ("no push type", 400, "MissingPushType", try await broadcast(stored, [])),
            ("alert push type", 400, "InvalidPushType", try await broadcast(stored, [("apns-push-type", "alert")])),
            ("priority 3", 400, "BadPriority", try await broadcast(stored, [("apns-push-type", "liveactivity"), ("apns-priority", "3")])),
            ("expiration text", 400, "BadExpirationDate", try await broadcast(stored, [("apns-push-type", "liveactivity"), ("apns-expiration", "soon")])),
            ("stored expiration on a policy-0 channel", 400, "BadExpirationDate",
             try await broadcast(unstored, [("apns-push-type", "liveactivity"), ("apns-expiration", "1900000000")])),
            ("empty", 400, "PayloadEmpty", try await broadcast(stored, body: "")),
            ("5,121 bytes", 413, "PayloadTooLarge", try await broadcast(stored, body: String(repeating: " ", count: 5119) + "{}")),
        ]
        for (name, status, expected, response) in cases {
            #expect(response.status == status && reason(response) == expected, "\(name): \(response.status) \(reason(response) ?? "")")
        }
        let records = try f.records().filter { $0["protocol"] as? String == "broadcast" }
        #expect(records.count == 3)
        #expect(records.first?["apns_id"] as? String == apnsID)
        #expect(records.first?["channel"] as? String == stored)
        #expect(records.first?["bundle_id"] as? String == "com.example.app")
    }
}
