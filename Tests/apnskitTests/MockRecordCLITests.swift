// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `mock serve --record`: appended across restarts (a `kill -9` included), only to a regular
/// file, and every line flushed with a summary and exit 143 on SIGTERM (issue 22).
@Suite("CLI: mock serve --record across restarts and signals (issue 22)", .serialized)
struct MockRecordCLITests {
    private func push(_ f: CLIFixture, _ ports: [String: Any], count: Int) async throws {
        let provider = try #require(ports["provider"] as? Int)
        _ = try f.dir.write("tokens.txt", text: (1...count).map { String(format: "%064x", $0) }.joined(separator: "\n"))
        let sent = try await f.run(["push", "--auth-key", "AuthKey_ABC123DEFG.p8", "--team-id", "TEAM123456", "--topic", "com.example.app",
                              "--tokens", "tokens.txt", "--alert", "hi", "--gateway", "127.0.0.1:\(provider)", "--ca-file", "mockca/ca-bundle.pem"])
        try #require(sent.status == 0, "\(sent)")
    }

    private func lines(_ f: CLIFixture) throws -> [String] {
        String(decoding: try f.dir.read("record.jsonl"), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("kill -9 a recording mock, restart it with the same --record: the earlier lines are kept and the new ones appended")
    func recordAppendsAcrossRestart() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        let (first, ports) = try await f.startMock(["--record", "record.jsonl"])
        try await push(f, ports, count: 40)
        await #expect(first.stop(signal: SIGKILL) == 9 || !first.process.isRunning)
        #expect(try lines(f).count == 40)
        try FileManager.default.removeItem(atPath: f.dir.file("ports.json"))
        let (second, again) = try await f.startMock(["--record", "record.jsonl"])
        try await push(f, again, count: 3)
        await #expect(second.stop() == 143)
        let all = try lines(f)
        #expect(all.count == 43, "\(all.count) lines")
        #expect(all.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil }, "every line is whole JSON")
        #expect(second.stderr.contains("stopped by SIGTERM (3 record line(s) in record.jsonl)"), "\(second.stderr)")
    }

    @Test("--record refuses a FIFO and a folder with exit 2 and a sentence, before listening")
    func recordRefusesNonRegularFiles() async throws {
        let f = try await CLIFixture()
        try await f.prepareMock()
        #expect(mkfifo(f.dir.file("record.fifo"), 0o600) == 0)
        try FileManager.default.createDirectory(atPath: f.dir.file("folder"), withIntermediateDirectories: false)
        for target in ["record.fifo", "folder"] {
            let refused = try await f.run(["mock", "serve", "--ca", "mockca", "--port", "0", "--no-legacy", "--no-feedback", "--record", target])
            #expect(refused.status == 2, "\(target): \(refused)")
            #expect(refused.stderr.contains("The record file \(target) is not a regular file (a folder, FIFO or device); give a file path for --record."), "\(refused)")
        }
    }

    @Test("SIGINT and SIGTERM: every recorded line is in the file, the summary counts them, exit 130 / 143")
    func signalFlushesRecord() async throws {
        for (signal, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            let f = try await CLIFixture()
            try await f.prepareMock()
            let (server, ports) = try await f.startMock(["--record", "record.jsonl"])
            try await push(f, ports, count: 25)
            await #expect(server.stop(signal: signal) == status, "\(server.stderr)")
            #expect(try lines(f).count == 25)
            let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
            #expect(server.stderr.contains("apnskit mock gateway stopped by \(name) (25 record line(s) in record.jsonl)."), "\(server.stderr)")
        }
    }
}
