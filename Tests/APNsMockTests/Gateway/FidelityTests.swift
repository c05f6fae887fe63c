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

/// Where the mock once differed from Apple, found by running third-party clients against it
/// (apns-protocol.md §1): each test is the case that showed it.
@Suite("Mock gateway: behaves like Apple where it once did not")
struct FidelityTests {
    @Test("The all-zero device token is answered 400 BadDeviceToken and not recorded; verify's probe still reads it as accepted")
    func zeroTokenIsBadDeviceToken() async throws {
        let f = try GatewayFixture()
        let identity = try f.identity(.universal)
        let client = try await f.client(identity)
        let response = try await push(client, token: GatewayCheck.probeToken)
        #expect(response.status == 400)
        #expect(reason(response) == "BadDeviceToken")
        #expect(try f.records().isEmpty)
        let report = await GatewayCheck(endpoint: f.endpoint, credentials: .certificate(identity), trust: .caFile(f.caBundle)).run()
        #expect(report.outcome == .accepted, "\(report.summary)")
        #expect(report.probe?.reason == "BadDeviceToken")
    }

    @Test("A token connection is offered 1 stream until a request with a valid token succeeds, then the full limit; certificates get it at once")
    func tokenConnectionStreamLimit() async throws {
        let f = try GatewayFixture()
        let token = try await f.client(nil)
        let foreign = try await push(token, headers: [("apns-topic", "com.example.app"),
                                                      ("authorization", "bearer \(try f.token(key: try PrivateKey.generate(.ec256)))")])
        #expect(foreign.status == 403)
        #expect(token.peerMaxConcurrentStreams == 1)
        let bearer = ("authorization", "bearer \(try f.token())")
        let probe = try await push(token, token: GatewayCheck.probeToken, headers: [("apns-topic", "com.example.app"), bearer])
        #expect(probe.status == 400, "a valid token on a failed request does not raise the limit")
        #expect(token.peerMaxConcurrentStreams == 1)
        let delivered = try await push(token, headers: [("apns-topic", "com.example.app"), bearer])
        #expect(delivered.status == 200)
        #expect(token.peerMaxConcurrentStreams == 1000)

        let certificate = try await f.client(try f.identity(.universal))
        #expect(try await push(certificate).status == 200)
        #expect(certificate.peerMaxConcurrentStreams == 1000)
    }

    @Test("Legacy notifications get unique ids in the record even when the client repeats its identifier")
    func legacyRecordIDsAreUnique() async throws {
        let f = try GatewayFixture()
        let identity = try f.identity(.universal)
        let port = try #require(f.gateway.legacyPort)
        let connection = try await TLSClient.connect(to: Endpoint(host: "127.0.0.1", port: port),
                                                     tls: .client(identity: identity, trust: .caFile(f.caBundle)))
        let token = try APNsDeviceToken(parsing: sampleToken)
        var frames: [UInt8] = []
        for _ in 0..<3 {
            frames += LegacyNotification(token: token.bytes, payload: samplePayload, identifier: 7, expiry: 0).encoded(.enhanced)
        }
        connection.write(frames)
        defer { connection.close() }
        // Success is silence in this protocol: poll the record (bounded; not a timing check).
        let records = try await Wait.reading(seconds: 30, { try f.records() }, until: { $0.count >= 3 })
        #expect(records.count == 3)
        #expect(Set(records.compactMap { $0["apns_id"] as? String }).count == 3)
        #expect(records.allSatisfy { $0["identifier"] as? Int == 7 })
    }

    @Test("Scoped token keys: other environment (kid or signature), topic-specific keys, one key per connection, another team")
    func scopedKeys() async throws {
        let sandboxOnly = try PrivateKey.generate(.ec256)
        let topicKey = try PrivateKey.generate(.ec256)
        let second = try PrivateKey.generate(.ec256)
        let f = try GatewayFixture(environment: .production, extraKeys: [
            .init(keyID: "SANDBOX001", teamID: "TEAM123456", publicKey: try PublicKey(of: sandboxOnly), environments: [.sandbox]),
            .init(keyID: "TOPICS0001", teamID: "TEAM123456", publicKey: try PublicKey(of: topicKey), topics: ["com.example.app"]),
            .init(keyID: "SECOND0001", teamID: "TEAM123456", publicKey: try PublicKey(of: second)),
        ])
        func tokenPush(_ token: String, topic: String = "com.example.app", pushType: String = "alert") async throws -> HTTP2Response {
            let client = try await f.client(nil)
            return try await push(client, headers: [("apns-topic", topic), ("apns-push-type", pushType), ("authorization", "bearer " + token)])
        }
        let byKid = try await tokenPush(try f.token(key: sandboxOnly, keyID: "SANDBOX001"))
        #expect(byKid.status == 403 && reason(byKid) == "BadEnvironmentKeyIdInToken")
        // The team key's id, signed with the sandbox-only key: the signature gives it away.
        let bySignature = try await tokenPush(try f.token(key: sandboxOnly, keyID: f.keyID))
        #expect(bySignature.status == 403 && reason(bySignature) == "BadEnvironmentKeyInToken")
        let strangerSignature = try await tokenPush(try f.token(key: try PrivateKey.generate(.ec256)))
        #expect(reason(strangerSignature) == "InvalidProviderToken")
        let otherTeam = try await tokenPush(try f.token(teamID: "OTHER12345"))
        #expect(otherTeam.status == 403 && reason(otherTeam) == "InvalidProviderToken")

        let topicToken = try f.token(key: topicKey, keyID: "TOPICS0001")
        #expect(try await tokenPush(topicToken).status == 200)
        #expect(try await tokenPush(topicToken, topic: "com.example.app.voip", pushType: "voip").status == 200)
        let outside = try await tokenPush(topicToken, topic: "com.other.app")
        #expect(outside.status == 400 && reason(outside) == "TopicDisallowed")

        // A connection belongs to the key it was first used with.
        let client = try await f.client(nil)
        let first = try await push(client, headers: [("apns-topic", "com.example.app"), ("authorization", "bearer " + (try f.token()))])
        #expect(first.status == 200)
        let unrelated = try await push(client, headers: [("apns-topic", "com.example.app"),
                                                         ("authorization", "bearer " + (try f.token(key: second, keyID: "SECOND0001")))])
        #expect(unrelated.status == 403 && reason(unrelated) == "UnrelatedKeyIdInToken")
    }
}
