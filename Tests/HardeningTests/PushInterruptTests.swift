// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

extension Hardening {
    /// Issue 22: SIGTERM or SIGINT during a `push` batch. The first signal stops reading the
    /// tokens and lets what is in flight finish; the second gives in-flight requests up. Either
    /// way every result is written, the summary printed, and the exit status is 128 + the
    /// signal. Checked against the mock gateway's own record of what it received.
    @Suite("Hardening: a push batch interrupted by signals keeps its word", .serialized)
    struct PushInterruptTests {
        struct Run {
            let status: Int32
            let stdout: String
            let results: [[String: Any]]
            let received: [String: Int]
        }

        /// Pushes 20,000 tokens through a mock that answers after `delayMs`; once the mock has
        /// recorded `after` notifications, sends `signals` (50 ms apart).
        static func interruptedBatch(signals: [Int32], delayMs: Int, after: Int) async throws -> Run {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let tokens = (1...20_000).map { String(format: "%064x", $0) }.joined(separator: "\n") + "\n"
            _ = try w.dir.write("tokens.txt", Array(tokens.utf8))
            let mock = try await MockServeProcess(in: w, ["--record", "record.jsonl", "--delay-ms", String(delayMs), "--quiet"])
            let push = try BackgroundProcess(Binaries.apnskit, [
                "push", "apns.pem", "--gateway", "127.0.0.1:\(mock.port)", "--ca-file", "ca/ca-bundle.pem", "--tokens", "tokens.txt",
                "--alert", "hi", "--results", "results.jsonl", "--format", "json", "--timeout", "10",
            ], directory: w.dir.path)
            _ = await Wait.until(seconds: 60, while: { push.process.isRunning }) { recordLines(w) >= after }
            #expect(push.process.isRunning, "the batch ended before the signal: \(push.stderr)")
            for (position, signal) in signals.enumerated() {
                // Not a wait for an event: spacing the signals so they arrive as two, in order
                // (push prints nothing when it takes the first).
                if position > 0 { try? await Task.sleep(nanoseconds: 50_000_000) }
                kill(push.process.processIdentifier, signal)
            }
            let status = await push.exited().status
            // The mock records a held request after its delay, even when the client reset it:
            // wait until its record stops growing before comparing.
            _ = await Wait.settled(quiet: .milliseconds(max(300, delayMs * 2))) { recordLines(w) }
            _ = await mock.stop()
            let results = try String(decoding: w.dir.read("results.jsonl"), as: UTF8.self).split(separator: "\n")
                .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            var received: [String: Int] = [:]
            for line in try String(decoding: w.dir.read("record.jsonl"), as: UTF8.self).split(separator: "\n") {
                if let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let id = object["apns_id"] as? String {
                    received[id, default: 0] += 1
                }
            }
            return Run(status: status, stdout: push.stdout, results: results, received: received)
        }

        static func recordLines(_ w: CLIWorkspace) -> Int {
            ((try? w.dir.read("record.jsonl")) ?? []).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }

        /// What every interrupted run must show: one line per notification read, the summary
        /// agreeing with the lines, and nothing the gateway received reported "not sent".
        static func expectTruthful(_ run: Run, signalStatus: Int32) throws {
            #expect(run.status == signalStatus, "exit status \(run.status)")
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "no summary: \(run.stdout)")
            let total = try #require(summary["total"] as? Int)
            #expect(run.results.count == total, "\(run.results.count) result lines for \(total) notifications")
            #expect(Set(run.results.compactMap { $0["index"] as? Int }).count == total, "one line per notification")
            #expect(total < 20_000, "input was still read to the end after the signal")
            let byID = Dictionary(run.results.compactMap { line in (line["apns_id"] as? String).map { ($0, line) } }) { first, _ in first }
            for (id, _) in run.received {
                let status = byID[id]?["status"] as? String
                #expect(status == "delivered" || status == "cancelled", "the gateway received \(id), reported \(status ?? "nothing")")
            }
            let notSent = run.results.filter { $0["status"] as? String == "not_sent" }
            #expect(notSent.allSatisfy { run.received[$0["apns_id"] as? String ?? ""] == nil })
            #expect(summary["not_sent"] as? Int == notSent.count)
        }

        @Test("SIGTERM during a batch: input no longer read, in-flight answered, every result written, exit 143", .timeLimit(.minutes(3)))
        func sigtermFinishesInFlight() async throws {
            let run = try await Self.interruptedBatch(signals: [SIGTERM], delayMs: 20, after: 2_000)
            try Self.expectTruthful(run, signalStatus: 143)
            // Graceful: what was in flight got its answer, so nothing ends "cancelled".
            #expect(!run.results.contains { $0["status"] as? String == "cancelled" })
            let delivered = run.results.filter { $0["status"] as? String == "delivered" }.count
            #expect(delivered == run.received.count, "delivered \(delivered), the gateway recorded \(run.received.count)")
        }

        @Test("SIGINT then SIGTERM: in-flight requests given up at once, still one truthful line each, exit 130", .timeLimit(.minutes(3)))
        func secondSignalCancelsInFlight() async throws {
            // Answers held 2 s: the second signal finds the window in flight.
            let run = try await Self.interruptedBatch(signals: [SIGINT, SIGTERM], delayMs: 2_000, after: 100)
            try Self.expectTruthful(run, signalStatus: 130)
            let cancelled = run.results.filter { $0["status"] as? String == "cancelled" }
            #expect(!cancelled.isEmpty, "the in-flight window should end cancelled")
            #expect(cancelled.allSatisfy { $0["may_have_been_delivered"] as? Bool == true })
        }
    }
}
