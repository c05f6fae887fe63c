// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if Outbox
import Foundation
import Testing
import TestSupport

/// `apnskit outbox init | enqueue | status` and a worker woken by NOTIFY, against PostgreSQL.
@Suite("CLI: outbox init, enqueue, status, LISTEN (issue 35)")
struct OutboxCLITests {
    @Test("init creates the table at the current schema version; again, it has nothing to do; status before init says to run it")
    func initIsIdempotent() async throws {
        let w = try await OutboxWorkspace.make()
        let again = try await w.outbox(["init"])
        #expect(again.status == 0 && again.stdout.contains("schema version 1; nothing to do"), "\(again)")
        #expect(try await w.psql("SELECT version FROM apns_outbox_schema") == "1\n")
        // A database without the table.
        try await w.cluster.createDatabase("\(w.database)_empty")
        let status = try await w.fixture.run(["outbox", "status", "--postgres", w.cluster.url("\(w.database)_empty")])
        expectFailure(status, status: 3, mentions: ["no outbox table", "apnskit outbox init"])
    }

    @Test("a database that is not there: one sentence, exit 4; a URL that is not postgres://: exit 2")
    func unreachableDatabase() async throws {
        let f = try await CLIFixture()
        let folder = try TemporaryDirectory("apnskit-nopg")
        let missing = try await f.run(["outbox", "status", "--postgres", "postgres://postgres@localhost/db?host=\(folder.path)"])
        expectFailure(missing, status: 4, mentions: ["PostgreSQL at \(folder.path)", "--postgres"])
        let bad = try await f.run(["outbox", "status", "--postgres", "mysql://x"])
        #expect(bad.status == 2 && bad.stderr.contains("--postgres"), "\(bad)")
        let none = try await f.run(["outbox", "status"], environment: ["DATABASE_URL": ""])
        #expect(none.status == 2 && none.stderr.contains("DATABASE_URL"), "\(none)")
    }

    @Test("enqueue inserts push's notification per token line (refused lines named, exit 1); status counts them as text, JSON and Prometheus text")
    func enqueueAndStatus() async throws {
        let w = try await OutboxWorkspace.make()
        let good = String(repeating: "ab", count: 32)
        _ = try w.dir.write("tokens.txt", text: "# a comment\n\(good)\nnot-a-token\n\(good) {\"aps\":{\"alert\":\"own\"}}\n")
        let enqueued = try await w.outbox(["enqueue", "--tokens", "tokens.txt", "--topic", "com.example.app", "--alert", "Hi", "--priority", "5",
                                           "--collapse-id", "news", "--expiration", "0"])
        #expect(enqueued.status == 1, "\(enqueued)")
        #expect(enqueued.stdout.contains("enqueued 2 rows") && enqueued.stdout.contains("1 line refused"), "\(enqueued)")
        #expect(enqueued.stderr.contains("not-a-token"), "\(enqueued)")
        let rows = try await w.psql("SELECT token, topic, push_type, priority, expiration, collapse_id, payload, state FROM apns_outbox ORDER BY id")
        #expect(rows == """
            \(good)|com.example.app|alert|5|0|news|{"aps":{"alert":"Hi"}}|queued
            \(good)|com.example.app|alert|5|0|news|{"aps":{"alert":"own"}}|queued

            """, "\(rows)")

        let text = try await w.outbox(["status"])
        #expect(text.status == 0 && text.stdout.contains("queued     2") && text.stdout.contains("oldest queued:"), "\(text)")
        let json = try await w.outbox(["status", "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
        #expect((object["counts"] as? [String: Int])?["queued"] == 2 && object["pending"] as? Int == 2 && object["total"] as? Int == 2, "\(object)")
        #expect((object["oldest_queued_seconds"] as? Double ?? -1) >= 0, "\(object)")

        let prometheus = try await w.outbox(["status", "--format", "prometheus"])
        let reader = #"""
        import sys, json
        from prometheus_client.parser import text_string_to_metric_families
        out = {}
        for family in text_string_to_metric_families(sys.stdin.read()):
            assert family.type == "gauge" and family.documentation, family.name
            for s in family.samples:
                out[s.name + json.dumps(s.labels, sort_keys=True)] = s.value
        print(json.dumps(out))
        """#
        let parsed = try await ProcessRunner.run("python3", ["-c", reader], stdin: Data(prometheus.stdout.utf8))
        let samples = try #require(try JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [String: Double], "\(parsed) \(prometheus)")
        #expect(samples[#"apns_outbox_rows{"state": "queued"}"#] == 2, "\(samples)")
        #expect(samples[#"apns_outbox_rows{"state": "delivered"}"#] == 0, "\(samples)")
        #expect(samples["apns_outbox_oldest_queued_seconds{}"] != nil, "\(samples)")
    }

    @Test("an idle worker (polling once an hour) is woken by the insert's NOTIFY and sends the row")
    func notifyWakesAnIdleWorker() async throws {
        let w = try await OutboxWorkspace.make()
        let (mock, ports) = try await w.fixture.startMock()
        let port = try #require(ports["provider"] as? Int)
        let worker = try w.worker(port: port, ["--poll-interval", "3600"])
        // The worker is listening once its connection's last statement is the LISTEN.
        let listening = try await Wait.until(seconds: 60, every: .milliseconds(100), while: { worker.isRunning }) {
            try await w.psql("SELECT count(*) FROM pg_stat_activity WHERE datname = '\(w.database)' AND query LIKE 'LISTEN%'") != "0\n"
        }
        try #require(listening, "\(worker.stderr)")
        try await w.psql("INSERT INTO apns_outbox (token, topic, payload) VALUES ('\(String(repeating: "cd", count: 32))', 'com.example.app', '{\"aps\":{}}')")
        let sent = try await w.waitForCounts(seconds: 60, while: { worker.isRunning }) { $0["delivered"] == 1 }
        let counts = try await w.counts()
        kill(worker.pid, SIGTERM)
        #expect(await worker.exited().status == 143)
        #expect(sent, "\(counts) \(worker.stdout) \(worker.stderr)")
        withExtendedLifetime(mock) {}
    }
}
#endif
