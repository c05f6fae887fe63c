// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `apnskit mock expect` and the long poll behind it (`GET /api/notifications/wait`), with
/// `apnskit push` and curl as senders and curl as a second reader.
@Suite("CLI: mock expect and the inbox's long poll")
struct MockExpectCLITests {
    static let token = String(repeating: "5e", count: 32)

    private func mock(_ f: CLIFixture) async throws -> (server: BackgroundProcess, provider: Int, ui: Int) {
        try await f.prepareMock()
        let (server, ports) = try await f.startMock(["--ui-port", "0"])
        return (server, try #require(ports["provider"] as? Int), try #require(ports["ui"] as? Int))
    }

    private func push(_ f: CLIFixture, _ provider: Int, _ extra: [String]) async throws -> ProcessResult {
        try await f.run(["push", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--token", Self.token,
                         "--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem"] + extra)
    }

    @Test("mock expect started before the push returns 0 once it arrives; curl's long poll returns the same entry")
    func waitsForThePush() async throws {
        let f = try await CLIFixture()
        let (server, provider, ui) = try await mock(f)
        defer { server.kill() }
        let expect = try BackgroundProcess(Binaries.apnskit, ["mock", "expect", "--ports-file", "ports.json", "--token", "5E5E",
                                                              "--status", "accepted", "--contains", "Order 66 shipped", "--timeout", "120"],
                                           directory: f.dir.path)
        let poll = try BackgroundProcess("/usr/bin/curl", ["--silent", "--max-time", "130", "-o", "wait.json",
                                                           "http://127.0.0.1:\(ui)/api/notifications/wait?topic=com.example&timeout=120"],
                                         directory: f.dir.path)
        // Both are waiting (nothing matches yet); a push that does not match does not end them.
        let other = try await push(f, provider, ["--topic", "com.example.app", "--alert", "Order 65 delayed"])
        #expect(other.status == 0, "\(other)")
        let sent = try await push(f, provider, ["--topic", "com.example.app", "--alert", "Order 66 shipped"])
        #expect(sent.status == 0, "\(sent)")
        let done = await expect.exited()
        #expect(done.status == 0, "\(expect.stdout) \(expect.stderr)")
        #expect(expect.stdout.contains("Found 1 notification with token 5E5E, status accepted, containing \"Order 66 shipped\" in the inbox at http://127.0.0.1:\(ui):"), "\(expect.stdout)")
        #expect(expect.stdout.contains("#2 200 alert token 5e5e5e5e5e5e5e5e... topic com.example.app"), "\(expect.stdout)")
        #expect(await poll.exited().status == 0)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(try f.dir.read("wait.json"))) as? [String: Any])
        #expect(answer["satisfied"] as? Bool == true && answer["wanted"] as? Int == 1, "\(answer)")
        // The poll ended at the first push (topic com.example matched it).
        #expect((answer["notifications"] as? [[String: Any]])?.first?["id"] as? Int == 1, "\(answer)")
    }

    @Test("Not there within --timeout: exit 1, one sentence, and what the inbox holds instead; --count and --since")
    func reportsWhatItSaw() async throws {
        let f = try await CLIFixture()
        let (server, provider, ui) = try await mock(f)
        defer { server.kill() }
        #expect(try await push(f, provider, ["--topic", "com.example.app", "--alert", "Hello"]).status == 0)
        let missing = try await f.run(["mock", "expect", "--ui", "http://127.0.0.1:\(ui)", "--topic", "com.other.app", "--timeout", "1"])
        expectFailure(missing, status: 1, mentions: ["Expected 1 notification with topic com.other.app within 1 s; 0 arrived (the inbox's newest entries are listed above)"])
        #expect(missing.stdout.contains("No entry matched.\nThe inbox's newest entries:\n  #1 200 alert token 5e5e5e5e5e5e5e5e... topic com.example.app"), "\(missing.stdout)")
        let two = try await f.run(["mock", "expect", "--ports-file", "ports.json", "--count", "2", "--timeout", "0"])
        expectFailure(two, status: 1, mentions: ["Expected 2 notifications within 0 s; 1 arrived"])
        #expect(try await push(f, provider, ["--topic", "com.example.app", "--alert", "Again"]).status == 0)
        let json = try await f.run(["mock", "expect", "--ports-file", "ports.json", "--count", "2", "--timeout", "0", "--format", "json"])
        #expect(json.status == 0, "\(json)")
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        #expect(object["satisfied"] as? Bool == true && object["count"] as? Int == 2)
        let since = try await f.run(["mock", "expect", "--ports-file", "ports.json", "--since", "2", "--timeout", "0"])
        expectFailure(since, status: 1, mentions: ["Expected 1 notification after entry #2 within 0 s"])
    }

    @Test("Usage 2, a ports file without the inbox 3, nothing listening 4; the long poll refuses bad parameters with 400")
    func badInput() async throws {
        let f = try await CLIFixture()
        expectFailure(try await f.run(["mock", "expect", "--timeout", "5"]), status: 2, mentions: ["--ui URL or --ports-file FILE"])
        expectFailure(try await f.run(["mock", "expect", "--ui", "ftp://x", "--timeout", "5"]), status: 2, mentions: ["is not an inbox address"])
        expectFailure(try await f.run(["mock", "expect", "--ui", "http://127.0.0.1:1", "--timeout", "301"]), status: 2, mentions: ["--timeout must be from 0 to 300"])
        _ = try f.dir.write("noui.json", text: #"{"provider": 1234}"#)
        expectFailure(try await f.run(["mock", "expect", "--ports-file", "noui.json"]), status: 3, mentions: ["has no \"ui\" port"])
        let closed = ReservedPort()
        expectFailure(try await f.run(["mock", "expect", "--ui", "http://127.0.0.1:\(closed.port)", "--timeout", "1"]), status: 4,
                      mentions: ["Cannot reach the inbox at http://127.0.0.1:\(closed.port)"])
        withExtendedLifetime(closed) {}

        let (server, _, ui) = try await mock(f)
        defer { server.kill() }
        for (query, message) in [("timeout=301", "timeout must be a number of seconds from 0 to 300"), ("count=0", "count must be a number from 1 to 10000"),
                                 ("since=-1", "since must be an entry id"), ("colour=red", "unknown parameter 'colour': use token, topic, status, push-type, q, limit, count, since or timeout.")] {
            let answer = try await ProcessRunner.run("/usr/bin/curl", ["--silent", "--max-time", "10", "--write-out", "\n%{http_code}",
                                                                       "http://127.0.0.1:\(ui)/api/notifications/wait?\(query)"])
            #expect(answer.stdout.hasSuffix("\n400") && answer.stdout.contains(message), "\(query): \(answer.stdout)")
        }
        let refused = try await f.run(["mock", "expect", "--ports-file", "ports.json", "--token", String(repeating: "a", count: 300), "--timeout", "0"])
        expectFailure(refused, status: 2, mentions: ["The inbox refused the query: token is 300 bytes long"])
    }

    @Test("An endless answer (a peer that is not the inbox) is cut at 32 MiB: exit 4 and a sentence")
    func endlessAnswer() async throws {
        let f = try await CLIFixture()
        // Answers any request with a 200 head and then 100 MB of body, as fast as it is read. It
        // binds port 0 and writes the port it got to "ready" (renamed into place whole).
        let script = """
        import os, socket
        s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
        open("ready.tmp", "w").write(str(s.getsockname()[1])); os.rename("ready.tmp", "ready")
        c, _ = s.accept(); c.recv(4096); c.sendall(b"HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\n\\r\\n")
        chunk = b"a" * 65536
        try:
            for _ in range(1600): c.sendall(chunk)
        except OSError: pass
        """
        _ = try f.dir.write("endless.py", text: script)
        let peer = try BackgroundProcess("/usr/bin/python3", ["endless.py"], directory: f.dir.path)
        defer { peer.kill() }
        try #require(await peer.waitForFile(f.dir.file("ready")), "\(peer.stderr)")
        let port = try #require(Int(String(decoding: try f.dir.read("ready"), as: UTF8.self)))
        let result = try await f.run(["mock", "expect", "--ui", "http://127.0.0.1:\(port)", "--timeout", "5"])
        expectFailure(result, status: 4, mentions: ["The inbox at http://127.0.0.1:\(port) sent more than 32 MiB; that is not the inbox's API."])
    }
}
