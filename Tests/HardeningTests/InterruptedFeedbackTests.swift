// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsTransport
import Foundation
import Testing
import TestSupport

extension Hardening {
    /// Issue 22: `feedback` stopped by SIGINT/SIGTERM writes the tuples it has read (the
    /// service forgets what it sent), says so, and exits 130/143. It used to die at once with
    /// nothing written.
    @Suite("Hardening: feedback interrupted")
    struct InterruptedFeedbackTests {
        /// Every TCP connection to or from `port` has nothing queued either way: what the
        /// server sent has been read by the client process.
        static func drained(port: Int) -> Bool { connectionRows(port: port).count >= 2 && connectionRows(port: port).allSatisfy { $0[4] == "00000000:00000000" } }

        /// The ESTABLISHED rows of /proc/net/tcp to or from `port`, split into fields.
        static func connectionRows(port: Int) -> [[Substring]] { TCPTable.rows(port: port, state: .established, remoteToo: true) }

        @Test("SIGTERM and SIGINT while the service holds the connection open: the 1,000 tuples read are written, a summary, exit 143 / 130")
        func interruptedFeedbackWritesWhatItRead() async throws {
            for (signal, status, name) in [(SIGTERM, Int32(143), "SIGTERM"), (SIGINT, Int32(130), "SIGINT")] {
                let w = try await CLIWorkspace.withPushCertificate(combined: true)
                let written = Flag()
                let server = try HostilePeerTests.hostileServer(w, alpn: false) { connection in
                    let tuple = FeedbackTuple(timestamp: 1_700_000_000, token: [UInt8](repeating: 0xCD, count: 32)).encoded
                    connection.write(Array([[UInt8]](repeating: tuple, count: 1000).joined()))
                    written.set()
                    // Then nothing more, and no close: a service that hangs after its list.
                    while (try? await connection.read(timeout: 60)) != nil {}
                }
                defer { server.stop() }
                let feedback = try BackgroundProcess(Binaries.apnskit, ["feedback", "apns.pem", "--gateway", "127.0.0.1:\(server.port)",
                                                                        "--ca-file", "ca/ca-bundle.pem", "--timeout", "60",
                                                                        "--format", "json", "-o", "feedback.json"], directory: w.dir.path)
                // The event: the server has handed over the list and, three looks in a row, nothing
                // is queued in either direction, so the client process has read it all.
                var quiet = 0
                _ = await Wait.until(seconds: 30, every: .milliseconds(100), while: { feedback.process.isRunning }) {
                    quiet = written.isSet && Self.drained(port: server.port) ? quiet + 1 : 0
                    return quiet == 3
                }
                #expect(quiet == 3, "the client never read what the server sent: \(Self.connectionRows(port: server.port))")
                await #expect(feedback.stop(signal: signal) == status, "\(feedback.stderr)")
                let output = try JSONSerialization.jsonObject(with: Data(try w.dir.read("feedback.json"))) as? [String: Any]
                #expect(output?["count"] as? Int == 1000 && (output?["tuples"] as? [Any])?.count == 1000, "\(name)")
                #expect(feedback.stderr.contains("Stopped by \(name) while reading the feedback service: the 1000 tuples read until then are in feedback.json"),
                        "\(feedback.stderr)")
            }
        }
    }
}

/// A flag one task sets and another polls.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
