// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import APNsProtocol
import APNsTransport
import Foundation
import Testing
import TestSupport

@Suite("Mock gateway: every APNs reason from the request that triggers it")
struct ProviderAPIReasonTests {
    @Test("An accepted notification: 200, apns-id echoed, apns-unique-id in sandbox, recorded")
    func accepted() async throws {
        let f = try GatewayFixture()
        let client = try await f.client(try f.identity(.universal))
        let id = "123e4567-e89b-12d3-a456-426614174000"
        let response = try await push(client, headers: [("apns-topic", "com.example.app"), ("apns-id", id), ("apns-push-type", "alert")])
        #expect(response.status == 200)
        #expect(response.header("apns-id") == id)
        #expect(response.header("apns-unique-id").map(RequestValidator.isCanonicalUUID) == true)
        #expect(response.body.isEmpty)
        let generated = try await push(client)
        #expect(generated.header("apns-id").map(RequestValidator.isCanonicalUUID) == true)
        let records = try f.records()
        #expect(records.count == 2)
        #expect(records.first?["apns_id"] as? String == id)
        #expect(records.first?["token"] as? String == sampleToken)
        #expect(records.first?["topic"] as? String == "com.example.app")
        #expect(records.first?["push_type"] as? String == "alert")
        #expect(records.first?["payload_bytes"] as? Int == samplePayload.count)
    }

    @Test("Success answers written in one block per connection: each carries its own ids, also while earlier ones are held (--delay-ms) and many are in flight; production answers carry no unique id")
    func answersWrittenInPlace() async throws {
        var held = GatewayFaults()
        held.delayMilliseconds = 50
        for (environment, faults) in [(APNsEnvironment.sandbox, held), (.sandbox, GatewayFaults()), (.production, GatewayFaults())] {
            let f = try GatewayFixture(environment: environment, faults: faults)
            let client = try await f.client(try f.identity(.universal))
            let ids = (0..<40).map { _ in UUID().uuidString }
            let answers = try await withThrowingTaskGroup(of: (String, HTTP2Response).self) { group in
                for id in ids {
                    group.addTask { (id, try await push(client, headers: [("apns-topic", "com.example.app"), ("apns-id", id)])) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.count == ids.count)
            var uniqueIDs: Set<String> = []
            for (sent, response) in answers {
                #expect(response.status == 200, "\(environment)")
                #expect(response.header("apns-id") == sent.lowercased(), "every answer echoes its own request's id, lower case")
                #expect(response.header("server") == "apnskit-mock")
                if environment == .sandbox, let unique = response.header("apns-unique-id") {
                    #expect(RequestValidator.isCanonicalUUID(unique))
                    uniqueIDs.insert(unique)
                } else {
                    #expect(response.header("apns-unique-id") == nil, "\(environment): only sandbox answers carry apns-unique-id")
                }
            }
            if environment == .sandbox { #expect(uniqueIDs.count == ids.count, "a fresh apns-unique-id per answer") }
        }
    }

    @Test("Request syntax reasons: path, method, headers, payload")
    func syntaxReasons() async throws {
        let f = try GatewayFixture()
        let client = try await f.client(try f.identity(.development))
        let topic = ("apns-topic", "com.example.app")
        let cases: [(String, Int, String, HTTP2Response)] = [
            ("GET", 405, "MethodNotAllowed", try await push(client, method: "GET")),
            ("path", 404, "BadPath", try await push(client, path: "/3/devices/\(sampleToken)")),
            ("no token", 400, "MissingDeviceToken", try await push(client, path: "/3/device/")),
            ("bad token", 400, "BadDeviceToken", try await push(client, token: "xyz")),
            ("apns-id", 400, "BadMessageId", try await push(client, headers: [topic, ("apns-id", "nope")])),
            ("expiration", 400, "BadExpirationDate", try await push(client, headers: [topic, ("apns-expiration", "tomorrow")])),
            ("priority", 400, "BadPriority", try await push(client, headers: [topic, ("apns-priority", "3")])),
            ("push type", 400, "InvalidPushType", try await push(client, headers: [topic, ("apns-push-type", "banner")])),
            ("collapse id", 400, "BadCollapseId", try await push(client, headers: [topic, ("apns-collapse-id", String(repeating: "x", count: 65))])),
            ("duplicate", 400, "DuplicateHeaders", try await push(client, headers: [topic, topic])),
            ("empty", 400, "PayloadEmpty", try await push(client, body: [])),
            ("too large", 413, "PayloadTooLarge", try await push(client, body: Array(repeating: 0x20, count: 4097))),
        ]
        for (name, status, expected, response) in cases {
            #expect(response.status == status, "\(name)")
            #expect(reason(response) == expected, "\(name)")
            #expect(response.header("content-type") == "application/json", "\(name)")
        }
        #expect(try f.records().isEmpty, "nothing rejected is recorded")
    }

    @Test("Certificate reasons: environment, topics, push types, non-APNs certificates")
    func certificateReasons() async throws {
        let f = try GatewayFixture(environment: .sandbox)
        let production = try await f.client(try f.identity(.production))
        #expect(reason(try await push(production)) == "BadCertificateEnvironment")
        let universal = try await f.client(try f.identity(.universal))
        #expect(reason(try await push(universal, headers: [])) == "MissingTopic")
        #expect(reason(try await push(universal, headers: [("apns-topic", "com.other.app")])) == "TopicDisallowed")
        #expect(reason(try await push(universal, headers: [("apns-topic", "com.example.app"), ("apns-push-type", "voip")])) == "BadTopic")
        #expect(try await push(universal, headers: [("apns-topic", "com.example.app.voip"), ("apns-push-type", "voip")]).status == 200)
        let development = try await f.client(try f.identity(.development))
        #expect(reason(try await push(development, headers: [])) == "MissingTopic", "the portal's certificates carry several topics")
        let voip = try await f.client(try f.identity(.voip))
        #expect(try await push(voip, headers: [("apns-push-type", "voip")]).status == 200, "single-topic certificate: its topic is implied")
        let plain = try await f.client(try f.identity(.other, bundle: "not-a-push-cert", environments: []))
        let refused = try await push(plain)
        #expect(refused.status == 403)
        #expect(reason(refused) == "BadCertificate")
    }

    @Test("Provider token reasons: missing, invalid, expired, unrelated key, wrong environment, revoked, too many updates")
    func tokenReasons() async throws {
        let otherKey = try PrivateKey.generate(.ec256)
        let productionOnly = try PrivateKey.generate(.ec256)
        let revoked = try PrivateKey.generate(.ec256)
        let f = try GatewayFixture(extraKeys: [
            .init(keyID: "PROD000001", teamID: "TEAM123456", publicKey: try PublicKey(of: productionOnly), environments: [.production]),
            .init(keyID: "REVOKED001", teamID: "TEAM123456", publicKey: try PublicKey(of: revoked), revoked: true),
        ])
        func tokenPush(_ authorization: String?, topic: String? = "com.example.app") async throws -> HTTP2Response {
            let client = try await f.client(nil)
            var headers: [(String, String)] = []
            if let topic { headers.append(("apns-topic", topic)) }
            if let authorization { headers.append(("authorization", authorization)) }
            return try await push(client, headers: headers)
        }
        #expect(reason(try await tokenPush(nil)) == "MissingProviderToken")
        #expect(try await tokenPush(nil).status == 403)
        #expect(reason(try await tokenPush("bearer not.a.jwt")) == "InvalidProviderToken")
        #expect(reason(try await tokenPush("bearer " + (try f.token(key: otherKey)))) == "InvalidProviderToken")
        #expect(reason(try await tokenPush("bearer " + (try f.token(issuedAt: Date().addingTimeInterval(-7200))))) == "ExpiredProviderToken")
        #expect(reason(try await tokenPush("bearer " + (try f.token(teamID: "OTHER12345")))) == "InvalidProviderToken")
        #expect(reason(try await tokenPush("bearer " + (try f.token(key: productionOnly, keyID: "PROD000001")))) == "BadEnvironmentKeyIdInToken")
        #expect(reason(try await tokenPush("bearer " + (try f.token(key: revoked, keyID: "REVOKED001")))) == "Forbidden")
        #expect(reason(try await tokenPush("bearer " + (try f.token()), topic: nil)) == "MissingTopic")
        #expect(try await tokenPush("bearer " + (try f.token())).status == 200)

        let client = try await f.client(nil)
        let first = try await push(client, headers: [("apns-topic", "com.example.app"), ("authorization", "bearer " + (try f.token()))])
        #expect(first.status == 200)
        let second = try await push(client, headers: [("apns-topic", "com.example.app"), ("authorization", "bearer " + (try f.token(issuedAt: Date().addingTimeInterval(-5))))])
        #expect(second.status == 429)
        #expect(reason(second) == "TooManyProviderTokenUpdates")
    }

    @Test("Device registry reasons: unknown, other environment, other topic, unregistered and expired with millisecond timestamps")
    func registryReasons() async throws {
        let known = try APNsDeviceToken(parsing: sampleToken)
        let production = try APNsDeviceToken(parsing: String(repeating: "cd", count: 32))
        let otherApp = try APNsDeviceToken(parsing: String(repeating: "ef", count: 32))
        let gone = try APNsDeviceToken(parsing: String(repeating: "01", count: 32))
        let expired = try APNsDeviceToken(parsing: String(repeating: "02", count: 32))
        let registry = DeviceRegistry(devices: [
            known: .init(topic: "com.example.app", environment: .sandbox),
            production: .init(topic: "com.example.app", environment: .production),
            otherApp: .init(topic: "com.other.app", environment: .sandbox),
            gone: .init(topic: "com.example.app", environment: .sandbox, unregisteredAt: 1_700_000_000_123),
            expired: .init(topic: "com.example.app", environment: .sandbox, expiredAt: 1_700_000_000_456),
        ])
        let f = try GatewayFixture(registry: registry)
        let client = try await f.client(try f.identity(.development))
        #expect(try await push(client, token: known.hex).status == 200)
        #expect(reason(try await push(client, token: String(repeating: "99", count: 32))) == "BadDeviceToken")
        #expect(reason(try await push(client, token: production.hex)) == "BadDeviceToken")
        #expect(reason(try await push(client, token: otherApp.hex)) == "DeviceTokenNotForTopic")
        let unregistered = try await push(client, token: gone.hex)
        #expect(unregistered.status == 410)
        let body = try JSONSerialization.jsonObject(with: Data(unregistered.body)) as? [String: Any]
        #expect(body?["reason"] as? String == "Unregistered")
        #expect((body?["timestamp"] as? NSNumber)?.int64Value == 1_700_000_000_123)
        let expiredResponse = try await push(client, token: expired.hex)
        #expect(expiredResponse.status == 410)
        #expect(reason(expiredResponse) == "ExpiredToken")
    }

    @Test("Injected server reasons: TooManyRequests, InternalServerError, ServiceUnavailable", arguments: [429, 500, 503])
    func injectedFailures(status: Int) async throws {
        var faults = GatewayFaults()
        faults.failureRates = [status: 1.0]
        let f = try GatewayFixture(faults: faults)
        let response = try await push(try await f.client(try f.identity(.development)))
        #expect(response.status == status)
        #expect(reason(response) == [429: "TooManyRequests", 500: "InternalServerError", 503: "ServiceUnavailable"][status])
        #expect(try f.records().isEmpty)
    }

    @Test("GOAWAY after N requests carries {\"reason\":\"Shutdown\"}; an idle connection gets IdleTimeout")
    func goAwayReasons() async throws {
        var faults = GatewayFaults()
        faults.goAwayAfter = 2
        let f = try GatewayFixture(faults: faults)
        let client = try await f.client(try f.identity(.development))
        #expect(try await push(client).status == 200)
        #expect(try await push(client).status == 200)
        await #expect(throws: TransportError.self) { _ = try await push(client) }
        do {
            _ = try await push(client)
        } catch let error as TransportError {
            #expect(error.message.contains("Shutdown"), "\(error.message)")
        }

        // A connection that sends nothing: the idle clock runs from the handshake (on a loaded
        // machine a first request could itself come after the timeout, so none is sent).
        var idle = GatewayFaults()
        idle.idleTimeoutSeconds = 0.3
        let g = try GatewayFixture(faults: idle)
        let quiet = try await g.client(try g.identity(.development))
        // The GOAWAY is the event; once it arrived the client takes no new requests.
        #expect(await Wait.until(seconds: 30) { quiet.isClosed }, "the idle connection was never sent GOAWAY")
        do {
            _ = try await push(quiet)
            Issue.record("an idle connection should have been sent GOAWAY")
        } catch let error as TransportError {
            #expect(error.message.contains("IdleTimeout"), "\(error.message)")
        }
    }
}
