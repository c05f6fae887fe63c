// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if Outbox
import Foundation
import Testing
import TestSupport

/// Issue 35: workers draining a real PostgreSQL outbox into `mock serve`, while workers are
/// killed, the database restarts under them and the gateway goes away. The database and the
/// mock's record are read with psql and JSON, not through our code.
@Suite("CLI: outbox workers against PostgreSQL and the mock (issue 35)")
struct OutboxFleetTests {
    /// Rows of the kill test (the number; docs/testing.md gives its cost in CI).
    static let fleetRows = Int(ProcessInfo.processInfo.environment["APNSKIT_OUTBOX_ROWS"] ?? "") ?? 100_000

    @Test("3 workers drain the outbox while one is SIGKILLed and one SIGTERMed: every row ends once, delivered rows are in the mock's record, rows recorded twice are flagged",
          .timeLimit(.minutes(10)))
    func fleetSurvivesKilledWorkers() async throws {
        let rows = Self.fleetRows
        let w = try await OutboxWorkspace.make()
        try await w.watchFinalStates()
        let (mock, ports) = try await w.fixture.startMock(["--record", "record.jsonl"])
        let port = try #require(ports["provider"] as? Int)
        _ = try w.tokenFile(rows)
        let enqueued = try await w.outbox(["enqueue", "--tokens", "tokens.txt", "--topic", "com.example.app", "--alert", "Hello"])
        #expect(enqueued.status == 0, "\(enqueued)")
        #expect(enqueued.stdout.contains("enqueued \(rows) rows"), "\(enqueued)")

        let flags = ["--batch-size", "250", "--lease", "3", "--poll-interval", "0.2", "--until-empty", "--format", "json"]
        let workers = try (0..<3).map { _ in try w.worker(port: port, flags) }
        // Mid-run: the first killed outright (its leased rows are in flight), the second told to stop.
        let quarter = try await w.waitForCounts(while: { workers[0].isRunning }) { ($0["delivered"] ?? 0) >= rows / 4 }
        try #require(quarter, "a quarter delivered: \(workers.map(\.stderr))")
        kill(workers[0].pid, SIGKILL)
        let half = try await w.waitForCounts(while: { workers[1].isRunning }) { ($0["delivered"] ?? 0) >= rows / 2 }
        try #require(half, "half delivered: \(workers.map(\.stderr))")
        kill(workers[1].pid, SIGTERM)
        let stopped = await workers[1].exited()
        #expect(stopped.status == 143, "SIGTERM: exit 143 after in-flight rows are written: \(workers[1].stderr)")
        #expect(OutboxWorkspace.summary(workers[1])["delivered"] as? Int ?? 0 > 0, "\(workers[1].stdout)")
        let last = await workers[2].exited()
        #expect(last.status == 0, "the last worker drains the rest and stops: \(workers[2].stdout) \(workers[2].stderr)")
        // Either survivor may reclaim the killed worker's rows once their lease runs out: the
        // second one too, in the time between the kill and its SIGTERM.
        let reclaimed = workers[1...].map { OutboxWorkspace.summary($0)["reclaimed"] as? Int ?? 0 }.reduce(0, +)
        #expect(reclaimed > 0, "the killed worker's rows were reclaimed: \(workers[1].stdout) \(workers[2].stdout)")

        // Every row in exactly one final state, none lost, none leased, none finished twice.
        let counts = try await w.counts()
        #expect(counts == ["delivered": rows], "\(counts)")
        #expect(try await w.psql("SELECT count(*) FROM apns_outbox WHERE finished_at IS NULL OR lease_owner IS NOT NULL OR apns_id IS NULL") == "0\n")
        #expect(try await w.psql("SELECT count(*) FROM final_state_changes") == "0\n", "a final row was written again")

        // The mock's record against the table.
        _ = await mock.stop()
        let recorded = try w.recordedIDs()
        var flagged: [String: Bool] = [:]
        for line in try await w.psql("SELECT apns_id, possibly_duplicated FROM apns_outbox").split(separator: "\n") {
            let parts = line.split(separator: "|")
            flagged[String(parts[0])] = parts[1] == "t"
        }
        #expect(flagged.count == rows)
        let missing = flagged.keys.filter { recorded[$0] == nil }
        #expect(missing.isEmpty, "\(missing.count) rows reported delivered are not in the mock's record, e.g. \(missing.prefix(3))")
        let strangers = recorded.keys.filter { flagged[$0] == nil }
        #expect(strangers.isEmpty, "the mock recorded apns-ids of no row: \(strangers.prefix(3))")
        let twice = recorded.filter { $0.value > 1 }.map(\.key)
        let unflagged = twice.filter { flagged[$0] != true }
        #expect(unflagged.isEmpty, "\(unflagged.count) of \(twice.count) rows the mock recorded twice are not flagged possibly_duplicated")
        // The kill left rows in flight: some were flagged (sent again, or only possibly sent).
        #expect(flagged.values.contains(true), "the SIGKILLed worker's leased rows are flagged")
    }

    @Test("the database restarted under two workers: they reconnect and finish the outbox", .timeLimit(.minutes(5)))
    func databaseRestart() async throws {
        let cluster = try await PostgresCluster.start()
        let w = try await OutboxWorkspace.make(cluster: cluster)
        try await w.watchFinalStates()
        let (mock, ports) = try await w.fixture.startMock()
        let port = try #require(ports["provider"] as? Int)
        let rows = 20_000
        _ = try w.tokenFile(rows)
        #expect(try await w.outbox(["enqueue", "--tokens", "tokens.txt", "--topic", "com.example.app", "--alert", "Hello"]).status == 0)
        let flags = ["--batch-size", "200", "--lease", "5", "--poll-interval", "0.2", "--until-empty", "--format", "json"]
        let workers = try (0..<2).map { _ in try w.worker(port: port, flags) }
        let started = try await w.waitForCounts(while: { workers[0].isRunning }) { ($0["delivered"] ?? 0) >= 2_000 }
        try #require(started, "\(workers.map(\.stderr))")
        let before = try await w.psql("SELECT pg_postmaster_start_time()")
        try await cluster.control("restart")
        // A new server process, and work left for the workers after it.
        #expect(try await w.psql("SELECT pg_postmaster_start_time()") != before)
        let afterRestart = try await w.counts()
        #expect((afterRestart["delivered"] ?? 0) < rows, "the restart came before the end: \(afterRestart)")
        for worker in workers {
            let end = await worker.exited(within: .seconds(240))
            #expect(end.status == 0, "\(worker.stdout) \(worker.stderr)")
        }
        #expect(try await w.counts() == ["delivered": rows])
        #expect(try await w.psql("SELECT count(*) FROM final_state_changes") == "0\n")
        // Both workers stayed up through it (a claim or a write that hit the restart is counted in
        // database_errors and retried; one that found a new connection did not fail at all).
        #expect(workers.allSatisfy { OutboxWorkspace.summary($0)["delivered"] != nil }, "\(workers.map(\.stdout))")
        withExtendedLifetime(mock) {}
    }

    /// A claim whose answer is lost (the connection broke after the server committed it) leaves
    /// rows leased to a worker that never saw them. CI once hung here: the heartbeat renewed
    /// every lease of its owner, those rows' too, so they never came back and `--until-empty`
    /// never ended. Simulated by leasing queued rows to the running worker's id by hand.
    @Test("rows leased to a worker by a claim it never saw are not renewed: their lease runs out, they are reclaimed and sent", .timeLimit(.minutes(3)))
    func lostClaimIsReclaimed() async throws {
        let w = try await OutboxWorkspace.make()
        let (mock, ports) = try await w.fixture.startMock(["--delay-ms", "1500"])
        let port = try #require(ports["provider"] as? Int)
        let rows = 400
        _ = try w.tokenFile(rows)
        #expect(try await w.outbox(["enqueue", "--tokens", "tokens.txt", "--topic", "com.example.app", "--alert", "Hello"]).status == 0)
        let worker = try w.worker(port: port, ["--batch-size", "50", "--batches-in-flight", "1", "--lease", "2", "--poll-interval", "0.2",
                                               "--until-empty", "--format", "json"])
        let leased = try await w.waitForCounts(seconds: 60, while: { worker.isRunning }) { ($0["leased"] ?? 0) > 0 }
        try #require(leased, "\(worker.stderr)")
        let orphaned = try await w.psql("""
            WITH owner AS (SELECT lease_owner FROM apns_outbox WHERE state = 'leased' LIMIT 1)
            UPDATE apns_outbox SET state = 'leased', lease_owner = (SELECT lease_owner FROM owner), lease_until = now() + interval '2 seconds'
            WHERE id IN (SELECT id FROM apns_outbox WHERE state = 'queued' ORDER BY id DESC LIMIT 20) RETURNING id
            """)
        #expect(orphaned.split(separator: "\n").count >= 20, "\(orphaned)")
        let end = await worker.exited(within: .seconds(150))
        #expect(end.status == 0, "\(worker.stdout) \(worker.stderr)")
        #expect(try await w.counts() == ["delivered": rows])
        #expect(OutboxWorkspace.summary(worker)["reclaimed"] as? Int ?? 0 >= 20, "\(worker.stdout)")
        withExtendedLifetime(mock) {}
    }

    @Test("the gateway down for 30 s: rows wait (nothing final, nothing failed), then all are delivered, each tried once", .timeLimit(.minutes(5)))
    func gatewayDown() async throws {
        let w = try await OutboxWorkspace.make()
        // A port of the mock's, then the mock gone: the worker starts against nothing.
        let (first, ports) = try await w.fixture.startMock(portsFile: "first.json")
        let port = try #require(ports["provider"] as? Int)
        _ = await first.stop()
        let rows = 2_000
        _ = try w.tokenFile(rows)
        #expect(try await w.outbox(["enqueue", "--tokens", "tokens.txt", "--topic", "com.example.app", "--alert", "Hello"]).status == 0)
        let worker = try w.worker(port: port, ["--retry-delay", "1", "--poll-interval", "0.2", "--until-empty", "--format", "json"])
        let downSince = Date()
        while Date().timeIntervalSince(downSince) < 30 {
            let counts = try await w.counts()
            #expect((counts["queued"] ?? 0) + (counts["leased"] ?? 0) == rows, "while the gateway is down every row waits: \(counts)")
            try #require(worker.isRunning, "\(worker.stderr)")
            // Not a wait: the table sampled once a second through the 30 s outage the test is about.
            try await Task.sleep(nanoseconds: 1_000_000_000)
        }
        let (mock, again) = try await w.fixture.startMock(["--port", "\(port)"], portsFile: "second.json")
        #expect(again["provider"] as? Int == port)
        let end = await worker.exited()
        #expect(end.status == 0, "\(worker.stdout) \(worker.stderr)")
        #expect(try await w.counts() == ["delivered": rows])
        #expect(try await w.psql("SELECT max(attempts) FROM apns_outbox") == "1\n", "untried claims are not counted as attempts")
        #expect(OutboxWorkspace.summary(worker)["released"] as? Int ?? 0 > 0, "rows were put back untried while the gateway was down: \(worker.stdout)")
        withExtendedLifetime(mock) {}
    }

    @Test("hostile rows (bad tokens, oversize payloads and columns, unknown push types, bad priorities) end rejected with a reason; the worker goes on")
    func hostileRows() async throws {
        let w = try await OutboxWorkspace.make()
        let (mock, ports) = try await w.fixture.startMock(["--record", "record.jsonl"])
        let port = try #require(ports["provider"] as? Int)
        let good = String(repeating: "ab", count: 32)
        try await w.psql("""
            INSERT INTO apns_outbox (token, topic, push_type, priority, expiration, collapse_id, payload) VALUES
              ('\(good)', 'com.example.app', 'alert', NULL, NULL, NULL, '{"aps":{"alert":"ok"}}'),
              ('zz-not-hex', 'com.example.app', 'alert', NULL, NULL, NULL, '{"aps":{"alert":"bad token"}}'),
              ('abcd', 'com.example.app', 'alert', NULL, NULL, NULL, '{"aps":{"alert":"short token"}}'),
              (repeat('ab', 500000), 'com.example.app', 'alert', NULL, NULL, NULL, '{"aps":{"alert":"huge token"}}'),
              ('\(good)', 'com.example.app', 'pigeon', NULL, NULL, NULL, '{"aps":{"alert":"unknown push type"}}'),
              ('\(good)', 'com.example.app', 'alert', 7, NULL, NULL, '{"aps":{"alert":"priority 7"}}'),
              ('\(good)', 'com.example.app', 'alert', NULL, -5, NULL, '{"aps":{"alert":"negative expiration"}}'),
              ('\(good)', 'com.example.app', 'alert', NULL, NULL, repeat('c', 65), '{"aps":{"alert":"long collapse id"}}'),
              ('\(good)', 'com.example.app', 'alert', NULL, NULL, NULL, '{"aps":{"alert":"' || repeat('x', 5000) || '"}}'),
              ('\(good)', 'com.example.app', 'alert', NULL, NULL, NULL, '{"aps":{"alert":"' || repeat('x', 20000000) || '"}}'),
              ('\(good)', 'com.example.app', 'alert', NULL, NULL, NULL, 'not json'),
              ('\(good)', 'com.example.app', 'alert', NULL, NULL, NULL, ''),
              ('\(good)', repeat('t', 1000), 'alert', NULL, NULL, NULL, '{"aps":{"alert":"huge topic"}}'),
              ('\(good)', 'com.example.app', 'background', 5, 0, '', '{"aps":{"content-available":1}}');
            -- A row its workers died with ten times already (a row that crashes workers).
            INSERT INTO apns_outbox (token, topic, payload, attempts) VALUES ('\(good)', 'com.example.app', '{"aps":{"alert":"poison"}}', 10);
            """)
        let worker = try w.worker(port: port, ["--poll-interval", "0.2", "--until-empty", "--format", "json"])
        let end = await worker.exited()
        #expect(end.status == 0, "\(worker.stdout) \(worker.stderr)")
        let lines = try await w.psql("SELECT id, state, coalesce(reason, ''), coalesce(detail, '') FROM apns_outbox ORDER BY id").split(separator: "\n")
        let rows = lines.map { $0.split(separator: "|", maxSplits: 3, omittingEmptySubsequences: false).map(String.init) }
        try #require(rows.count == 15, "\(lines)")
        let expected = ["delivered", "BadDeviceToken", "BadDeviceToken", "BadDeviceToken", "InvalidPushType", "BadPriority", "BadExpirationDate",
                        "BadCollapseId", "PayloadTooLarge", "PayloadTooLarge", "BadPayload", "PayloadEmpty", "BadTopic", "delivered", "failed"]
        for (row, want) in zip(rows, expected) {
            if want == "delivered" || want == "failed" {
                #expect(row[1] == want, "\(row)")
            } else {
                #expect(row[1] == "rejected" && row[2] == want && !row[3].isEmpty, "row \(row[0]): \(row) (want \(want))")
            }
        }
        // What was refused before sending never reached the mock; the two good rows did.
        #expect(try w.recordedIDs().count == 2)
        // Each row's apns-id is the version-5 UUID of "apns_outbox:<id>" in the documented
        // namespace, as Python's uuid module computes it, and the mock saw that id.
        let delivered = try await w.psql("SELECT id, apns_id FROM apns_outbox WHERE state = 'delivered' ORDER BY id").split(separator: "\n")
            .map { $0.split(separator: "|").map(String.init) }
        let program = "import sys, uuid\nfor i in sys.argv[1:]: print(uuid.uuid5(uuid.UUID('6f1b8c2e-4d0a-5e7b-9c3f-a1b2c3d4e5f6'), 'apns_outbox:' + i))"
        let python = try await ProcessRunner.run("python3", ["-c", program] + delivered.map { $0[0] })
        #expect(python.stdout.split(separator: "\n").map(String.init) == delivered.map { $0[1] }, "\(python) \(delivered)")
        #expect(Set(try w.recordedIDs().keys) == Set(delivered.map { $0[1] }))
        withExtendedLifetime(mock) {}
    }
}
#endif
