// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if Outbox
import APNs
import APNsMock
import APNsOutbox
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Testing
import TestSupport

/// The library as a service uses it: a PostgresClient and an APNsOutboxWorker in one
/// ServiceGroup, against a real PostgreSQL and the in-process mock gateway, whose record shows
/// the headers that arrived.
@Suite("APNsOutboxWorker in a ServiceGroup (issue 35)")
struct OutboxServiceTests {
    static let quiet = Logger(label: "apnskit.tests.outbox", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("rows enqueued through the store are sent with their own apns-id as collapse id (or none for ''); a graceful shutdown ends the worker")
    func workerInServiceGroup() async throws {
        try #require(PostgresCluster.isInstalled, "PostgreSQL is not installed: run scripts/setup.sh")
        let cluster = try await PostgresCluster.start()
        let gateway = try await APNsMockGateway.start()
        defer { gateway.shutdown() }
        // The schema first (a worker refuses another version), as a deploy's `outbox init` does.
        _ = try await APNsOutboxDatabase.withStore(url: cluster.url()) { try await $0.migrate() }
        let postgres = PostgresClient(configuration: try APNsOutboxDatabase.configuration(url: cluster.url()))
        let apns = try APNsClient(configuration: gateway.configuration)
        let store = APNsOutboxStore(client: postgres)
        var settings = APNsOutboxWorker.Configuration()
        settings.pollInterval = .milliseconds(100)
        let worker = APNsOutboxWorker(store: store, client: apns, configuration: settings)
        let group = ServiceGroup(configuration: .init(services: [postgres, worker], logger: Self.quiet))
        let running = Task { try await group.run() }

        let token = String(repeating: "ab", count: 32)
        let ids = try await store.enqueue([
            APNsOutboxEntry(token: token, payload: Array(#"{"aps":{"alert":"one"}}"#.utf8)),
            APNsOutboxEntry(token: token, collapseID: "", payload: Array(#"{"aps":{"alert":"two"}}"#.utf8)),
            APNsOutboxEntry(token: token, collapseID: "scores", payload: Array(#"{"aps":{"alert":"three"}}"#.utf8)),
        ])
        #expect(ids.count == 3)
        _ = await Wait.until(seconds: 60, every: .milliseconds(50)) { gateway.sentNotificationCount >= 3 }
        let sent = gateway.sentNotifications.sorted { $0.receivedAt < $1.receivedAt }
        try #require(sent.count == 3, "\(sent)")
        let expectedIDs = ids.map { APNsOutboxIdentity.apnsID(forKey: APNsOutboxIdentity.rowKey($0)) }
        #expect(Set(sent.map(\.apnsID)) == Set(expectedIDs))
        for notification in sent {
            let index = try #require(expectedIDs.firstIndex(of: notification.apnsID))
            let want: String? = [expectedIDs[0].uuidString.lowercased(), nil, "scores"][index]
            #expect(notification.collapseID == want, "row \(index): \(notification.collapseID ?? "none")")
        }
        let status = try await Wait.reading(seconds: 60, every: .milliseconds(50), { try await store.status() }, until: { $0.count(.delivered) >= 3 })
        #expect(status.count(.delivered) == 3 && status.pending == 0, "\(status)")

        await group.triggerGracefulShutdown()
        try await running.value
        #expect(worker.totals.delivered == 3, "\(worker.totals)")
        await apns.close()
    }
}
#endif
