// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import APNsMock
import APNsProtocol
import APNsSender
import Foundation
import Testing

/// `APNsClient.Configuration.tokenDiagnosis` against two mock gateways sharing one CA and one
/// device registry: a sandbox one (the client's) and a production one (the other environment).
/// A token registered for production is BadDeviceToken on the sandbox mock; the diagnosis
/// sends it to production once, and the typed result says so.
/// Results from the batch's own thread.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [APNsSendResult] = []
    func add(_ result: APNsSendResult) { lock.withLock { results.append(result) } }
    var all: [APNsSendResult] { lock.withLock { results } }
}

@Suite("Token diagnosis: BadDeviceToken tried once against the other environment")
struct TokenDiagnosisTests {
    static let production = try! APNsDeviceToken(parsing: String(repeating: "a1", count: 32))
    static let sandbox = try! APNsDeviceToken(parsing: String(repeating: "b2", count: 32))
    static let unknown = try! APNsDeviceToken(parsing: String(repeating: "c3", count: 32))
    static let productionGone = try! APNsDeviceToken(parsing: String(repeating: "d4", count: 32))
    static let unknown2 = try! APNsDeviceToken(parsing: String(repeating: "e5", count: 32))
    static let goneAt = 1_700_000_000_000

    static let registry = DeviceRegistry(devices: [
        production: .init(topic: "com.example.app", environment: .production),
        sandbox: .init(topic: "com.example.app", environment: .sandbox),
        productionGone: .init(topic: "com.example.app", environment: .production, unregisteredAt: goneAt),
    ])

    /// The sandbox fixture (the client's gateway) and a production gateway on the same CA.
    func gateways() throws -> (GatewayFixture, MockGateway, String) {
        let f = try GatewayFixture(environment: .sandbox, registry: Self.registry)
        var configuration = MockGateway.Configuration()
        configuration.api.environment = .production
        configuration.api.registry = Self.registry
        let record = f.dir.file("production.jsonl")
        configuration.recordPath = record
        return (f, try MockGateway(ca: f.ca, caFolder: f.dir.file("ca"), configuration: configuration), record)
    }

    func client(_ f: GatewayFixture, production: MockGateway?, limit: Int = 10) throws -> APNsClient {
        var configuration = APNsClient.Configuration(gateway: .custom(host: "127.0.0.1", port: f.gateway.providerPort, environment: .sandbox),
                                                     authentication: .token(try APNsTokenSigner(key: f.authKey, keyID: f.keyID, teamID: f.teamID)))
        configuration.trust = .caFile(f.caBundle)
        configuration.bundleID = "com.example.app"
        configuration.tokenDiagnosis = .init(gateway: production.map { .custom(host: "127.0.0.1", port: $0.providerPort, environment: .production) },
                                             limit: limit)
        return try APNsClient(configuration: configuration)
    }

    func notification(_ token: APNsDeviceToken) throws -> APNsNotification {
        try APNsNotification(token: token, alert: APNsAlert(title: "Diagnosis"))
    }

    func productionRecord(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["token"] as? String
        }
    }

    @Test("A production token: rejected here, delivered in production, said so in the typed result; tried once per token")
    func productionToken() async throws {
        let (f, production, record) = try gateways()
        defer { production.stop() }
        let client = try client(f, production: production)
        let result = await client.send(try notification(Self.production))
        #expect(result.reason == .badDeviceToken, "\(result)")
        let diagnosis = try #require(result.diagnosis)
        #expect(diagnosis.verdict == .otherEnvironment && diagnosis.environment == .production && diagnosis.attempt == .delivered)
        #expect(diagnosis.deliveredInOtherEnvironment && !diagnosis.repeated)
        // Delivered in production: a resend there would notify twice, so the result says "may have been delivered".
        #expect(result.mayHaveBeenDelivered && !result.invalidatesToken)
        #expect(result.tokenRemoval() == .keepForOtherEnvironment(.production))
        // The same token again: the earlier verdict, nothing sent to production a second time.
        let again = await client.send(try notification(Self.production))
        #expect(again.diagnosis?.repeated == true && again.diagnosis?.verdict == .otherEnvironment && again.diagnosis?.deliveredInOtherEnvironment == false)
        #expect(!again.mayHaveBeenDelivered)
        // A sandbox token is delivered here and never diagnosed.
        let delivered = await client.send(try notification(Self.sandbox))
        #expect(delivered.isDelivered && delivered.diagnosis == nil)
        await client.close()
        #expect(productionRecord(record) == [Self.production.hex], "production delivered it exactly once")
        #expect(try f.records().compactMap { $0["token"] as? String } == [Self.sandbox.hex])
    }

    @Test("A batch: neither, a production token unregistered there (its 410 timestamp decides), the limit; summary counts")
    func batchVerdictsAndLimit() async throws {
        let (f, production, record) = try gateways()
        defer { production.stop() }
        let client = try client(f, production: production, limit: 3)
        let tokens = [Self.production, Self.unknown, Self.productionGone, Self.production, Self.unknown2, Self.sandbox]
        let results = Collected()
        let summary = await client.send(feed: APNsNotificationList(try tokens.map(notification))) { results.add($0) }
        await client.close()
        let byIndex = Dictionary(uniqueKeysWithValues: results.all.map { ($0.index, $0) })
        #expect(byIndex.count == 6)
        #expect(byIndex[1]?.diagnosis?.verdict == .neither && byIndex[1]?.tokenRemoval() == .remove)
        let gone = try #require(byIndex[2])
        #expect(gone.diagnosis?.verdict == .otherEnvironment)
        guard case .rejected(410, .unregistered, let at?)? = gone.diagnosis?.attempt else { Issue.record("\(gone)"); return }
        #expect(APNsSendResult.milliseconds(at) == Self.goneAt)
        #expect(gone.tokenRemoval() == .compareRegistration(unregisteredAt: at))
        #expect(gone.tokenRemoval(registeredAt: at.addingTimeInterval(60)) == .keepReregistered(registeredAt: at.addingTimeInterval(60), unregisteredAt: at))
        #expect(gone.tokenRemoval(registeredAt: at.addingTimeInterval(-60)) == .remove)
        // Three tokens tried (production, unknown, productionGone); the repeat shares its verdict; the fourth is over the limit.
        #expect(byIndex[3]?.diagnosis?.repeated == true)
        #expect(byIndex[4]?.diagnosis?.verdict == .limitReached && byIndex[4]?.diagnosis?.attempt == nil)
        #expect(summary.diagnosed == 3 && summary.deliveredInOtherEnvironment == 1 && summary.otherEnvironmentTokens == 3
                && summary.diagnosisLimitReached == 1 && summary.delivered == 1 && summary.rejected == 5, "\(summary)")
        #expect(productionRecord(record) == [Self.production.hex])
    }

    @Test("A custom gateway with no other named: undetermined, invalidConfiguration, nothing sent")
    func noOtherGateway() async throws {
        let (f, production, record) = try gateways()
        defer { production.stop() }
        let client = try client(f, production: nil)
        let result = await client.send(try notification(Self.production))
        await client.close()
        let diagnosis = try #require(result.diagnosis)
        #expect(diagnosis.verdict == .undetermined)
        guard case .failed(let error)? = diagnosis.attempt else { Issue.record("\(diagnosis)"); return }
        #expect(error.code == .invalidConfiguration)
        // Nothing says whose token it is: kept, never safe to delete on this run's word.
        #expect(result.tokenRemoval() == .keepUndetermined(.production, mayHaveBeenDelivered: false) && productionRecord(record).isEmpty)
    }

    /// Before: the diagnosis client had the sender's policy (6 attempts), so production got the
    /// notification six times and the token was called safe to delete.
    @Test("Production answers after the request timeout: one attempt, never resent; undetermined, may have been delivered, kept")
    func noAnswerInTime() async throws {
        let f = try GatewayFixture(environment: .sandbox, registry: Self.registry)
        var configuration = MockGateway.Configuration()
        configuration.api.environment = .production
        configuration.api.registry = Self.registry
        configuration.api.faults.delayMilliseconds = 3000
        let record = f.dir.file("production.jsonl")
        configuration.recordPath = record
        let production = try MockGateway(ca: f.ca, caFolder: f.dir.file("ca"), configuration: configuration)
        defer { production.stop() }
        var clientConfiguration = APNsClient.Configuration(gateway: .custom(host: "127.0.0.1", port: f.gateway.providerPort, environment: .sandbox),
                                                           authentication: .token(try APNsTokenSigner(key: f.authKey, keyID: f.keyID, teamID: f.teamID)))
        clientConfiguration.trust = .caFile(f.caBundle)
        clientConfiguration.bundleID = "com.example.app"
        clientConfiguration.timeouts.request = .seconds(1)
        clientConfiguration.tokenDiagnosis = .init(gateway: .custom(host: "127.0.0.1", port: production.providerPort, environment: .production))
        let client = try APNsClient(configuration: clientConfiguration)
        let result = await client.send(try notification(Self.production))
        await client.close()
        let diagnosis = try #require(result.diagnosis)
        #expect(diagnosis.verdict == .undetermined && diagnosis.mayHaveBeenDelivered, "\(diagnosis)")
        #expect(result.tokenRemoval() == .keepUndetermined(.production, mayHaveBeenDelivered: true))
        #expect(result.tokenRemoval()?.safeToDelete == false)
        #expect(productionRecord(record) == [Self.production.hex], "production received \(productionRecord(record).count) requests")
    }
}
