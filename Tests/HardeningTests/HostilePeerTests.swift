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

extension Hardening {
    /// Issue 12: peers that stream without end (request bodies, legacy frames, answers,
    /// feedback tuples), hold slots, or never answer. Each stream is refused at its bound, so
    /// these tests stream until refused (a cap of a few hundred MB makes the old behaviour
    /// fail instead of running for minutes), check the process's peak memory, the answer, and
    /// that a normal client is served meanwhile.
    @Suite("Hardening: hostile peers")
    struct HostilePeerTests {
        static let token = String(repeating: "ab", count: 32)
        /// Memory a refused stream may cost the process, above its peak at start.
        static let memoryBound = 64 * 1024  // KiB

        @Test("An endless request body is answered 413 PayloadTooLarge at 5 KB, before END_STREAM; the mock stays bounded and serves others")
        func endlessUpload() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let mock = try await MockServeProcess(in: w)
            defer { mock.kill() }
            // No client certificate: anyone can open this stream.
            let client = try await TLSClient.connect(to: Endpoint(host: "127.0.0.1", port: mock.port),
                                                     tls: .client(identity: nil, trust: .caFile(mock.caFile)))
            let headers = RawHTTP2.requestStart(path: "/3/device/\(Self.token)") + RawHTTP2.literal("apns-topic", "com.example.hardening")
                + RawHTTP2.literal("apns-push-type", "alert")
            client.write(RawHTTP2.preface + RawHTTP2.frame(.settings) + RawHTTP2.frame(.headers, flags: RawHTTP2.endHeaders, stream: 1, headers))
            let chunk = Array(repeating: RawHTTP2.frame(.data, stream: 1, Array(repeating: UInt8(ascii: " "), count: RawHTTP2.maxFrameSize)), count: 64)
                .flatMap { $0 }
            let answered = await Self.stream(chunk, on: client, upTo: 512 << 20) { frames in
                frames.contains { $0.type == RawHTTP2.FrameType.rstStream.rawValue && $0.stream == 1 }
            }
            let text = answered.frames.filter { $0.type == RawHTTP2.FrameType.data.rawValue && $0.stream == 1 }
                .map { String(decoding: $0.payload, as: UTF8.self) }.joined()
            #expect(text == #"{"reason":"PayloadTooLarge"}"#, "answer \(text), frames \(answered.frames.map(\.type)), sent \(answered.sent)")
            // RST_STREAM NO_ERROR after the answer: "stop sending" (RFC 9113 section 8.1).
            let reset = answered.frames.first { $0.type == RawHTTP2.FrameType.rstStream.rawValue && $0.stream == 1 }
            #expect(reset?.payload == [0, 0, 0, 0])
            #expect(answered.sent < 64 << 20, "refused only after \(answered.sent) bytes")
            // Meanwhile (the upload's connection still open) a normal client is served.
            let push = try await mock.push(w)
            #expect(push.status == 0, "\(push)")
            client.close()
            #expect(mock.peakGrowth >= 0 && mock.peakGrowth < Self.memoryBound, "mock peak grew \(mock.peakGrowth) KiB")
            #expect(await mock.stop() == 143)
        }

        @Test("The legacy port stops reading after a bad frame: a 4 GB frame header and a flood cost the mock nothing; others are served")
        func legacyFloodAfterProtocolError() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let mock = try await MockServeProcess(in: w, legacy: true)
            defer { mock.kill() }
            let identity = try IdentityLoader.load([w.dir.file("apns.pem")], passphrases: .none)
            let client = try await TLSClient.connect(to: Endpoint(host: "127.0.0.1", port: mock.legacyPort ?? 0), tls: Self.legacyTLS(identity, mock))
            // Command 2, frame length 0xFFFFFFF0: a protocol error (status 128).
            client.write([2, 0xFF, 0xFF, 0xFF, 0xF0])
            let flood = [UInt8](repeating: 0x41, count: 1 << 20)
            let refused = await Self.stream(flood, on: client, upTo: 512 << 20, until: { _ in false }, raw: true)
            #expect(refused.closed, "the mock kept reading \(refused.sent) bytes after the bad frame")
            #expect(refused.sent < 512 << 20)
            #expect(await mock.waitForLog("Protocol error for identifier 0; closing"), "\(mock.stderr)")
            let push = try await w.run(["push", "apns.pem", "--legacy", "--gateway", "127.0.0.1:\(mock.legacyPort ?? 0)", "--ca-file", "ca/ca-bundle.pem",
                                  "--token", Self.token, "--alert", "still serving"])
            #expect(push.status == 0, "\(push)")
            #expect(mock.peakGrowth >= 0 && mock.peakGrowth < Self.memoryBound, "mock peak grew \(mock.peakGrowth) KiB")
        }

        @Test("A flood of valid legacy frames is held back by TCP (the mock reads no faster than it decodes)")
        func legacyValidFlood() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let mock = try await MockServeProcess(in: w, legacy: true)
            defer { mock.kill() }
            let identity = try IdentityLoader.load([w.dir.file("apns.pem")], passphrases: .none)
            let client = try await TLSClient.connect(to: Endpoint(host: "127.0.0.1", port: mock.legacyPort ?? 0), tls: Self.legacyTLS(identity, mock))
            let frame = LegacyNotification(token: [UInt8](repeating: 0xAB, count: 32), payload: Array(#"{"aps":{"alert":"flood"}}"#.utf8))
                .encoded(.framed)
            let megabyte = Array([[UInt8]](repeating: frame, count: (1 << 20) / frame.count).joined())
            // 192 MB handed to our side at once: whatever the mock does not read stays here
            // and is dropped at close. Before back-pressure the mock read it all into memory.
            for _ in 0..<192 { client.write(megabyte) }
            client.close()
            #expect(await mock.waitForLog("notification(s)"), "\(mock.stderr)")
            #expect(mock.peakGrowth >= 0 && mock.peakGrowth < Self.memoryBound, "mock peak grew \(mock.peakGrowth) KiB")
            let push = try await w.run(["push", "apns.pem", "--legacy", "--gateway", "127.0.0.1:\(mock.legacyPort ?? 0)", "--ca-file", "ca/ca-bundle.pem",
                                  "--token", Self.token, "--alert", "still serving"])
            #expect(push.status == 0, "\(push)")
        }

        @Test("An endless answer body fails verify and push with one sentence at 64 KiB, memory bounded")
        func endlessResponseBody() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let server = try Self.hostileServer(w) { connection in
                await Self.awaitRequest(connection)
                connection.write(RawHTTP2.frame(.headers, flags: RawHTTP2.endHeaders, stream: 1, [0x88]))
                let data = RawHTTP2.frame(.data, stream: 1, Array(repeating: UInt8(ascii: "x"), count: RawHTTP2.maxFrameSize))
                let megabyte = Array([[UInt8]](repeating: data, count: 64).joined())
                for _ in 0..<256 { connection.write(megabyte) }  // 256 MB, never END_STREAM
                while (try? await connection.read(timeout: 30)) != nil {}
            }
            defer { server.stop() }
            for command in [["verify", "apns.pem"], ["push", "apns.pem", "--token", Self.token, "--alert", "hi"]] {
                let (result, peak) = try await BoundsTests.measured(
                    "/usr/bin/time -f maxrss=%M '\(Binaries.apnskit)' \(command.joined(separator: " ")) --gateway 127.0.0.1:\(server.port) --ca-file ca/ca-bundle.pem --timeout 20",
                    in: w.dir.path)
                #expect((result.stdout + result.stderr).contains("sent more than 65536 bytes of response body on stream 1"), "\(command[0]): \(result)")
                #expect(result.status == 4, "\(command[0]): \(result)")
                #expect(peak > 0 && peak < 96 * 1024, "\(command[0]) peak RSS \(peak) KiB")
            }
        }

        @Test("A feedback service that streams tuples without end: the first 100,000 are written, then exit 4, memory bounded")
        func endlessFeedback() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let server = try Self.hostileServer(w, alpn: false) { connection in
                let tuple = FeedbackTuple(timestamp: 1_700_000_000, token: [UInt8](repeating: 0xCD, count: 32)).encoded
                let megabyte = Array([[UInt8]](repeating: tuple, count: (1 << 20) / tuple.count).joined())
                for _ in 0..<256 { connection.write(megabyte) }  // 256 MB: 7 million tuples
                while (try? await connection.read(timeout: 30)) != nil {}
            }
            defer { server.stop() }
            let (result, peak) = try await BoundsTests.measured(
                "/usr/bin/time -f maxrss=%M '\(Binaries.apnskit)' feedback apns.pem --gateway 127.0.0.1:\(server.port) --ca-file ca/ca-bundle.pem --format json -o feedback.json",
                in: w.dir.path)
            #expect(result.status == 4, "\(result)")
            #expect(result.stderr.contains("sent more than 100000 tuples; apnskit stopped reading there and wrote the first 100000."), "\(result)")
            let written = try JSONSerialization.jsonObject(with: Data(try w.dir.read("feedback.json"))) as? [String: Any]
            #expect(written?["count"] as? Int == 100_000)
            #expect(peak > 0 && peak < 160 * 1024, "feedback peak RSS \(peak) KiB")
        }

        @Test("Idle connections are closed with GOAWAY IdleTimeout, including ones that never sent a request")
        func idleConnectionsClosed() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let mock = try await MockServeProcess(in: w, ["--idle-timeout", "1"])
            defer { mock.kill() }
            var clients: [HTTP2Client] = []
            for _ in 0..<50 {
                let client = try await HTTP2Client.connect(to: Endpoint(host: "127.0.0.1", port: mock.port),
                                                           tls: .client(identity: nil, trust: .caFile(mock.caFile)))
                try await client.ready(timeout: 10)
                clients.append(client)
            }
            // A safety net, not a measure: the sweep runs every half second.
            let allClosed = await Wait.until(seconds: 30) { !clients.contains(where: \.isOpen) }
            #expect(allClosed, "\(clients.filter(\.isOpen).count) of 50 idle connections still open")
            let push = try await mock.push(w)
            #expect(push.status == 0, "\(push)")
        }

        @Test("One address cannot take every slot: 1,000 connections from 127.0.0.1 leave room for 127.0.0.2")
        func slotsPerPeer() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let mock = try await MockServeProcess(in: w)
            defer { mock.kill() }
            let fds = ConnectionFloodTests.openSilentConnections(1000, port: mock.port)
            defer { for fd in fds { close(fd) } }
            #expect(await mock.waitForLog("100 connections from 127.0.0.1 are open, the limit for one address; --max-connections-per-peer allows more."),
                    "\(mock.stderr)")
            // curl from another loopback address, with the certificate: served.
            let curl = try await ProcessRunner.run("curl", ["-s", "--http2", "--interface", "127.0.0.2", "--cacert", "ca/ca-bundle.pem", "--cert", "apns.pem",
                                                      "-H", "apns-topic: com.example.hardening", "-d", #"{"aps":{"alert":"hi"}}"#,
                                                      "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "20",
                                                      "https://127.0.0.1:\(mock.port)/3/device/\(Self.token)"], directory: w.dir.path)
            #expect(curl.stdout == "200", "\(curl)")
        }

        @Test("push --timeout bounds each answer; in a TLS black hole the summary counts the reconnects")
        func pushTimeouts() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            // Completes TLS and HTTP/2, reads requests, never answers.
            let silent = try Self.hostileServer(w) { connection in
                while (try? await connection.read(timeout: 60)) != nil {}
            }
            defer { silent.stop() }
            let unanswered = try await w.run(["push", "apns.pem", "--gateway", "127.0.0.1:\(silent.port)", "--ca-file", "ca/ca-bundle.pem",
                                        "--token", Self.token, "--alert", "hi", "--timeout", "1", "--format", "json"])
            #expect(unanswered.status == 4, "\(unanswered)")
            #expect(unanswered.stdout.contains("did not answer the request within 1 second"), "\(unanswered)")
            let summary = try Self.json(unanswered.stdout)
            #expect(summary?["retries"] as? Int == 5, "\(unanswered.stdout)")

            // A black hole: TCP accepted (by the kernel), nothing ever read or sent.
            let hole = try Self.blackHole()
            defer { shutdown(hole.fd, Int32(SHUT_RDWR)); close(hole.fd) }
            let lost = try await w.run(["push", "apns.pem", "--gateway", "127.0.0.1:\(hole.port)", "--ca-file", "ca/ca-bundle.pem",
                                  "--token", Self.token, "--alert", "hi", "--timeout", "1", "--format", "json"])
            #expect(lost.status == 4, "\(lost)")
            let lostSummary = try Self.json(lost.stdout)
            // Every connection the black hole took after the first is a reconnect.
            let attempts = hole.accepted.count
            #expect(attempts > 1)
            #expect(lostSummary?["reconnects"] as? Int == attempts - 1, "\(attempts) connections: \(lost.stdout)")
        }

        @Test("A host name OpenSSL cannot check fails the connection instead of checking only the chain")
        func hostNameFailsClosed() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let mock = try await MockServeProcess(in: w)
            defer { mock.kill() }
            let identity = try IdentityLoader.load([w.dir.file("apns.pem")], passphrases: .none)
            // As a C string this is "localhost", which the mock's certificate names.
            let check = GatewayCheck(endpoint: Endpoint(host: "localhost\u{0}.attacker.example", port: mock.port),
                                     credentials: .certificate(identity), trust: .caFile(mock.caFile))
            let report = await check.run()
            #expect(report.outcome != .accepted, "\(report.summary)")
            #expect(report.summary.contains("cannot be checked against a certificate"), "\(report.summary)")
        }

        @Test("A client offering ALPN http/1.1 only is refused with no_application_protocol")
        func alpnRefusal() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let mock = try await MockServeProcess(in: w)
            defer { mock.kill() }
            let result = try await ProcessRunner.run("openssl", ["s_client", "-connect", "127.0.0.1:\(mock.port)", "-alpn", "http/1.1",
                                                           "-CAfile", "ca/ca-bundle.pem"], stdin: Data(), directory: w.dir.path)
            #expect((result.stdout + result.stderr).contains("no application protocol"), "\(result)")
            let h2 = try await ProcessRunner.run("openssl", ["s_client", "-connect", "127.0.0.1:\(mock.port)", "-alpn", "http/1.1,h2",
                                                       "-CAfile", "ca/ca-bundle.pem"], stdin: Data(), directory: w.dir.path)
            #expect(h2.stdout.contains("ALPN protocol: h2"), "\(h2)")
        }

        // MARK: helpers

        /// What `stream` saw: bytes sent, frames (or raw bytes) received, whether the peer closed.
        struct Streamed {
            var sent = 0
            var bytes: [UInt8] = []
            var frames: [RawHTTP2.Frame] { RawHTTP2.frames(in: bytes) }
            var closed = false
        }

        /// Writes `chunk` again and again (up to `limit` bytes, 1 MB at a time, waiting while
        /// the connection is full) until `done` holds for the frames received or the peer
        /// closes; then closes.
        static func stream(_ chunk: [UInt8], on client: TLSClient, upTo limit: Int,
                           until done: @escaping @Sendable ([RawHTTP2.Frame]) -> Bool, raw: Bool = false) async -> Streamed {
            let received = Received()
            let reader = Task {
                while true {
                    guard let bytes = try? await client.read(timeout: 60) else { received.close(); return }
                    received.add(bytes, done: raw ? { _ in false } : done)
                }
            }
            var sent = 0
            while sent < limit, !received.finished {
                client.write(chunk)
                sent += chunk.count
                await client.waitUntilWritable()
            }
            client.close()
            await reader.value
            var result = received.snapshot
            result.sent = sent
            return result
        }

        final class Received: @unchecked Sendable {
            private let lock = NSLock()
            private var state = Streamed()
            private var matched = false
            var finished: Bool { lock.withLock { matched || state.closed } }
            var snapshot: Streamed { lock.withLock { state } }
            func add(_ bytes: [UInt8], done: ([RawHTTP2.Frame]) -> Bool) {
                lock.withLock {
                    state.bytes += bytes
                    if done(state.frames) { matched = true }
                }
            }
            func close() { lock.withLock { state.closed = true } }
        }

        /// A TLS server with the mock CA's server certificate (h2 by ALPN unless `alpn` is
        /// false); `serve` gets each connection after it sent SETTINGS.
        static func hostileServer(_ w: CLIWorkspace, alpn: Bool = true,
                                  serve: @escaping @Sendable (TLSServerConnection) async -> Void) throws -> TLSServer {
            let ca = try MockCA.load(from: w.dir.file("ca"))
            let identity = try APNsIdentity(certificate: ca.server, privateKey: ca.serverKey, chain: [],
                                        certificateLabel: "server.pem", keyLabel: "server-key.pem")
            return try TLSServer.start(tls: .server(identity: identity)) { connection in
                if alpn { connection.write(RawHTTP2.frame(.settings)) }
                await serve(connection)
                connection.close()
            }
        }

        /// Reads until the client's first HEADERS frame.
        static func awaitRequest(_ connection: TLSServerConnection) async {
            var received: [UInt8] = []
            while !RawHTTP2.frames(in: received).contains(where: { $0.type == RawHTTP2.FrameType.headers.rawValue }) {
                guard let bytes = try? await connection.read(timeout: 30) else { return }
                received += bytes
            }
        }

        /// A listening socket whose connections are accepted (and counted) but never read
        /// from or written to: a TLS black hole.
        static func blackHole() throws -> (fd: Int32, port: Int, accepted: Accepted) {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            guard fd >= 0, bound else { throw TransportError(.configuration, "could not open the black-hole listener") }
            let accepted = Accepted()
            Thread {
                while true {
                    let client = accept(fd, nil, nil)
                    guard client >= 0 else { return }  // the listener was closed
                    accepted.add(client)
                }
            }.start()
            return (fd, Int(UInt16(bigEndian: address.sin_port)), accepted)
        }

        /// The black hole's connections, held open until the test ends.
        final class Accepted: @unchecked Sendable {
            private let lock = NSLock()
            private var fds: [Int32] = []
            func add(_ fd: Int32) { lock.withLock { fds.append(fd) } }
            var count: Int { lock.withLock { fds.count } }
            deinit { for fd in fds { close(fd) } }
        }

        static func legacyTLS(_ identity: APNsIdentity, _ mock: MockServeProcess) -> TLSConfiguration {
            var tls = TLSConfiguration.client(identity: identity, trust: .caFile(mock.caFile))
            tls.applicationProtocols = []
            return tls
        }

        static func json(_ text: String) throws -> [String: Any]? {
            guard let line = text.split(separator: "\n").last else { return nil }
            return try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
    }
}
