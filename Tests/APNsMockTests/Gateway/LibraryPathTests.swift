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

@Suite("The library path: load an identity, verify it, hand it to the sender")
struct LibraryPathTests {
    @Test("The README's example, against the mock gateway")
    func loadVerifySend() async throws {
        let f = try GatewayFixture()
        let issued = try f.identity(.development)
        let path = try f.dir.write("apns.pem", try issued.combinedPEM())

        // The README's library example, with the mock's endpoint and CA instead of Apple's.
        let identity = try APNsIdentity.load(contentsOf: [path])
        var configuration = APNsClient.Configuration(gateway: .custom(host: "127.0.0.1", port: f.gateway.providerPort, environment: .sandbox),
                                                     authentication: .certificate(identity))
        configuration.trust = .caFile(f.caBundle)
        configuration.pool.connections = 2
        let client = try APNsClient(configuration: configuration)

        let token = try APNsDeviceToken(parsing: "c9d4c07c fbbc26d6 ef87a44d 53e19838 31b5f8eb 4d7b6e3a 27e6c9b2 a1f0e5d4")
        var payload = APNsAlertPayload(alert: APNsAlert(title: "Hello", body: "From apnskit"))
        payload.sound = .default
        let result = await client.send(try APNsNotification(token: token, payload: payload))  // topic: the certificate's bundle id
        #expect(result.outcome == .delivered)
        #expect(result.uniqueID != nil, "sandbox answers carry apns-unique-id")
        await client.close()
        let records = try f.records().filter { ($0["token"] as? String) == token.hex }
        #expect(records.count == 1)
        #expect((records.first?["apns_id"] as? String).flatMap(UUID.init(uuidString:)) == result.apnsID)
    }

    @Test("The DocC catalog's long-running example (async/await, Logger, metrics) is Examples/PushWorker, and it runs against the mock")
    func longRunningExample() async throws {
        // ExamplePrograms.md shows the worker's two files as its first two Swift listings, in
        // this order (docs.sh compiles them); each must be the file as it is.
        let root = URL(fileURLWithPath: Binaries.packageRoot)
        let article = try String(contentsOf: root.appendingPathComponent("Sources/APNs/APNs.docc/ExamplePrograms.md"), encoding: .utf8)
        var listings: [String] = []
        var rest = article.startIndex..<article.endIndex
        while listings.count < 2, let fenceStart = article.range(of: "```swift\n", range: rest),
              let fenceEnd = article.range(of: "\n```\n", range: fenceStart.upperBound..<article.endIndex) {
            listings.append(String(article[fenceStart.upperBound...fenceEnd.lowerBound]))
            rest = fenceEnd.upperBound..<article.endIndex
        }
        for (index, file) in ["main.swift", "PrintingMetrics.swift"].enumerated() {
            let source = try String(contentsOf: root.appendingPathComponent("Examples/PushWorker/\(file)"), encoding: .utf8)
            #expect(listings.count > index && listings[index] == source, "ExamplePrograms.md's listing \(index + 1) differs from Examples/PushWorker/\(file)")
        }

        let f = try GatewayFixture()
        let pem = try f.dir.write("apns.pem", try f.identity(.development).combinedPEM())
        let worker = URL(fileURLWithPath: Binaries.apnskit).deletingLastPathComponent().appendingPathComponent("PushWorker").path
        let tokens = (1...3).map { String(format: "%064x", $0) } + ["not a token"]
        let run = try await ProcessRunner.run(worker, [], stdin: Data((tokens.joined(separator: "\n") + "\n").utf8), environment: [
            "APNS_IDENTITY": pem, "APNS_GATEWAY": "127.0.0.1:\(f.gateway.providerPort)", "APNS_CA_FILE": f.caBundle,
        ])
        #expect(run.status == 0, "\(run)")
        for token in tokens.prefix(3) { #expect(run.stdout.contains("delivered \(token) "), "\(run)") }
        #expect(run.stdout.contains("apns_notifications_total{outcome=delivered,reason=none,push_type=alert,environment=sandbox} 3"), "\(run)")
        #expect(run.stdout.contains("apns_connects_total{result=ok,environment=sandbox} "), "\(run)")
        #expect(run.stderr.contains("connected to the gateway"), "the Logger it passed got the sender's logs: \(run.stderr)")
        #expect(run.stderr.contains("not a device token"))
        let records = try f.records()
        #expect(records.count == 3)
        #expect(records.allSatisfy { $0["push_type"] as? String == "alert" }, "the typed payload set the push type: \(records)")
    }
}
