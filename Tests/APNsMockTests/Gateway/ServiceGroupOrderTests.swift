// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNs
import APNsMock
import Logging
import ServiceLifecycle
import Testing
import TestSupport

/// Issue 32, item 6: a `ServiceGroup` shuts its services down in reverse order, so a client
/// listed after the app that sends through it closes first and the app's last sends fail.
/// The right order loses nothing; the wrong one says so in one warning, naming the fix.
@Suite("APNsClient's place in a ServiceGroup", .serialized)
struct ServiceGroupOrderTests {
    /// An app that sends `sends` notifications once its graceful shutdown begins (its last
    /// work, as a server answers its last requests), and keeps their results.
    struct LastSendsApp: Service {
        let client: APNsClient
        let sends: Int
        let results = Results()

        actor Results {
            var all: [APNsSendResult] = []
            func append(_ result: APNsSendResult) { all.append(result) }
        }

        func run() async throws {
            try? await gracefulShutdown()
            for n in 0..<sends {
                let token = try APNsDeviceToken(parsing: String(repeating: "a", count: 62) + String(format: "%02x", n))
                let result = await client.send(APNsNotification(token: token, payload: Array(#"{"aps":{"alert":"last"}}"#.utf8)))
                await results.append(result)
            }
        }
    }

    /// Runs `[first, second]` in a group until a graceful shutdown; returns the app's results
    /// and the client's warnings.
    static func run(clientFirst: Bool) async throws -> (results: [APNsSendResult], warnings: [LogRecords.Record], gatewayCount: Int) {
        let gateway = try await APNsMockGateway.start()
        defer { gateway.shutdown() }
        let records = LogRecords()
        let client = try APNsClient(configuration: gateway.configuration, logger: Logger(label: "client") { _ in CapturingLogHandler(records) })
        let app = LastSendsApp(client: client, sends: 2)
        let quiet = Logger(label: "group") { _ in SwiftLogNoOpLogHandler() }
        let group = ServiceGroup(configuration: .init(services: clientFirst ? [client, app] : [app, client], logger: quiet))
        let running = Task { try await group.run() }
        await group.triggerGracefulShutdown()
        try await running.value
        await client.close()
        return (await app.results.all, records.all.filter { $0.level == .warning }, gateway.sentNotificationCount)
    }

    @Test("Client listed first: the app's last sends are delivered and nothing is logged about the order", .timeLimit(.minutes(1)))
    func clientFirst() async throws {
        let run = try await Self.run(clientFirst: true)
        #expect(run.results.count == 2 && run.results.allSatisfy(\.isDelivered), "\(run.results.map(\.outcome))")
        #expect(run.gatewayCount == 2)
        #expect(run.warnings.isEmpty, "\(run.warnings.map(\.message))")
    }

    @Test("Client listed after the app: its last sends fail clientClosed, never sent, and one warning names the fix", .timeLimit(.minutes(1)))
    func clientLast() async throws {
        let run = try await Self.run(clientFirst: false)
        #expect(run.results.count == 2)
        for result in run.results {
            guard case .failed(let error) = result.outcome else {
                Issue.record("a send after the client's shutdown was \(result.outcome)")
                continue
            }
            #expect(error.code == .clientClosed && !error.mayHaveBeenDelivered)
        }
        #expect(run.gatewayCount == 0)
        #expect(run.warnings.count == 1, "one warning per client, not one per send: \(run.warnings.map(\.message))")
        #expect(run.warnings.first?.message.contains("List the client before the services that send through it") == true)
    }
}
