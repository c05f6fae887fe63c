// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import APNsProtocol
@testable import APNsSender
import Foundation
import OpenSSLCore
import Testing
import TestSupport

/// Issue 32, item 6: the configuration names a host and port once, groups its settings, and
/// refuses its mistakes when the client is made; broadcasts take typed payloads.
@Suite("APNsClient.Configuration")
struct ConfigurationTests {
    typealias Configuration = APNsClient.Configuration

    /// A token signer made in process (no openssl child: a blocking wait here would hold one
    /// of the two threads every test shares).
    static func tokenConfiguration(bundleID: String? = "com.example.app") throws -> Configuration {
        let signer = try APNsTokenSigner(key: PrivateKey.generate(.ec256), keyID: "ABC123DEFG", teamID: "TEAMID1234")
        var configuration = Configuration(gateway: .sandbox, authentication: .token(signer))
        configuration.bundleID = bundleID
        return configuration
    }

    @Test("A gateway is a host and a port named once: Apple's on 443 or 2197, a custom one as given")
    func gateways() {
        #expect(Configuration.Gateway.sandbox.host == "api.sandbox.push.apple.com" && Configuration.Gateway.sandbox.port == 443)
        #expect(Configuration.Gateway.production.host == "api.push.apple.com" && Configuration.Gateway.production.environment == .production)
        let alternative = Configuration.Gateway.apple(.production, port: .alternative)
        #expect(alternative.port == 2197 && alternative.isApple && alternative.providerEndpoint().port == 2197)
        let mock = Configuration.Gateway.custom(host: "127.0.0.1", port: 8443, environment: .sandbox)
        #expect(!mock.isApple && mock.providerEndpoint().host == "127.0.0.1" && mock.providerEndpoint().port == 8443)
        // Channel management: Apple's own host for Apple's gateways, the named one otherwise.
        #expect(Configuration.Gateway.sandbox.managementEndpoint(proxy: nil).host == "api-manage-broadcast.sandbox.push.apple.com")
        #expect(mock.managementEndpoint(proxy: nil).port == 8443)
    }

    @Test("Token diagnosis tries Apple's other gateway on the same port; a custom gateway has none unless named")
    func diagnosisTarget() throws {
        var configuration = try Self.tokenConfiguration()
        configuration.gateway = .apple(.sandbox, port: .alternative)
        configuration.tokenDiagnosis = .init()
        let target = try #require(configuration.diagnosisTarget)
        #expect(target.endpoint?.host == "api.push.apple.com" && target.endpoint?.port == 2197 && target.environment == .production)
        configuration.gateway = .custom(host: "127.0.0.1", port: 8443, environment: .sandbox)
        #expect(configuration.diagnosisTarget?.endpoint == nil)
        configuration.tokenDiagnosis = .init(gateway: .custom(host: "127.0.0.1", port: 9443, environment: .production))
        #expect(configuration.diagnosisTarget?.endpoint?.port == 9443 && configuration.diagnosisTarget?.environment == .production)
    }

    @Test("Mistakes are refused when the client is made, with a sentence naming the setting")
    func refusedMistakes() throws {
        var configuration = try Self.tokenConfiguration()
        #expect(configuration.problem() == nil)
        _ = try APNsClient(configuration: configuration)

        let mistakes: [(String, (inout Configuration) -> Void)] = [
            ("bundleID", { $0.bundleID = nil }),
            ("bundleID", { $0.bundleID = "" }),
            ("port", { $0.gateway = .custom(host: "127.0.0.1", port: 0) }),
            ("port", { $0.gateway = .custom(host: "127.0.0.1", port: 65_536) }),
            ("host", { $0.gateway = .custom(host: "", port: 443) }),
            ("port", { $0.tokenDiagnosis = .init(gateway: .custom(host: "127.0.0.1", port: -1)) }),
            ("pool.connections", { $0.pool.connections = 0 }),
            ("pool.eventLoops", { $0.pool.eventLoops = 65 }),
            ("pool.concurrency", { $0.pool.concurrency = 10_001 }),
            ("timeouts.request", { $0.timeouts.request = .zero }),
            ("timeouts.idlePing", { $0.timeouts.idlePing = .seconds(-1) }),
            ("retry.baseDelay", { $0.retry.baseDelay = .milliseconds(-1) }),
            ("retry.maximumAttempts", { $0.retry.maximumAttempts = 0 }),
        ]
        for (setting, mistake) in mistakes {
            configuration = try Self.tokenConfiguration()
            mistake(&configuration)
            let problem = try #require(configuration.problem(), "\(setting) was not refused")
            #expect(problem.code == .invalidConfiguration && problem.description.contains(setting), "\(setting): \(problem)")
            #expect(throws: problem) { _ = try APNsClient(configuration: configuration) }
        }
        // Settings that look odd but are fine: no health-check pings, retries without delay.
        configuration = try Self.tokenConfiguration()
        configuration.timeouts.idlePing = nil
        configuration.retry = APNsRetryPolicy(maximumAttempts: 1, baseDelay: .zero, maximumDelay: .zero, maximumReconnects: 0)
        #expect(configuration.problem() == nil)
    }

    @Test("Token authentication without a bundle id is refused by the broadcast client too, and so is a bad management port")
    func broadcastClientRefuses() throws {
        let missing = try Self.tokenConfiguration(bundleID: nil)
        #expect(throws: APNsSendError.self) { _ = try APNsBroadcastClient(configuration: .init(missing)) }
        let badPort = APNsBroadcastClient.Configuration(try Self.tokenConfiguration(), channelManagement: .custom(host: "127.0.0.1", port: 70_000))
        #expect { _ = try APNsBroadcastClient(configuration: badPort) } throws: { ($0 as? APNsSendError)?.description.contains("70000") == true }
    }

    @Test("The retry policy's delays are Durations; the back-off stays within them")
    func retryDurations() {
        let policy = APNsRetryPolicy(maximumAttempts: 5, baseDelay: .milliseconds(100), maximumDelay: .seconds(1))
        for attempt in 1...8 {
            let delay = policy.delay(afterAttempt: attempt)
            #expect(delay >= .milliseconds(50) && delay <= .seconds(1), "attempt \(attempt): \(delay)")
        }
        #expect(policy.delay(afterAttempt: 3, jitter: 1) == 0.4)
    }

    struct Score: Encodable, Sendable {
        var home: Int
        var away: Int
        var note = ""
    }

    @Test("A broadcast from a typed Live Activity update: its priority, and a broadcast's 5,120-byte limit rather than a device push's 4,096")
    func typedBroadcast() throws {
        let quiet = try APNsBroadcast(APNsLiveActivityPayload(event: .update, contentState: Score(home: 1, away: 0)))
        #expect(quiet.priority == .conservePower)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(quiet.payload)) as? [String: Any])
        let aps = try #require(object["aps"] as? [String: Any])
        #expect(aps["event"] as? String == "update" && (aps["content-state"] as? [String: Any])?["home"] as? Int == 1)
        let end = try APNsBroadcast(APNsLiveActivityPayload(event: .end, contentState: Score(home: 2, away: 0)), expiration: 0)
        #expect(end.priority == .immediate && end.expiration == 0)
        #expect(try APNsBroadcast(APNsLiveActivityPayload(event: .update, contentState: Score(home: 1, away: 0)), priority: .immediate).priority == .immediate)

        let large = APNsLiveActivityPayload(event: .update, contentState: Score(home: 1, away: 0, note: String(repeating: "x", count: 4_500)))
        #expect(throws: APNsPayloadError.self) { _ = try APNsNotification(token: try APNsDeviceToken(parsing: String(repeating: "ab", count: 32)), payload: large) }
        #expect(try APNsBroadcast(large).payload.count > 4_096)
        let tooLarge = APNsLiveActivityPayload(event: .update, contentState: Score(home: 1, away: 0, note: String(repeating: "x", count: 5_200)))
        #expect { _ = try APNsBroadcast(tooLarge) } throws: { ($0 as? APNsPayloadError)?.code == .tooLarge && "\($0)".contains("5120") }
    }
}
