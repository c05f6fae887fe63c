// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import APNsTransport
import Foundation
import Testing
import TestSupport

extension Hardening {
    /// Issue 7, network bounds: a peer that sends a 16 MB header block, in either direction.
    /// HPACK makes this cheap for the sender: one 4 KB field in the dynamic table, then one
    /// byte per copy. Before `HTTP2Settings.maxHeaderListSize` was enforced, a 147 KB block
    /// (HEADERS + 8 CONTINUATIONs) took the mock from 30 MB to 538 MB.
    @Suite("Hardening: HTTP/2 header blocks")
    struct HeaderBlockTests {
        static let limit = HTTP2Settings().maxHeaderListSize
        static let token = String(repeating: "ab", count: 32)
        static let sixteenMB = 16 << 20
        static let enhanceYourCalm: UInt32 = 0xb
        static let compressionError: UInt32 = 0x9

        /// Opens a TLS connection to `port`, sends the client preface, SETTINGS and `frames`,
        /// and returns every frame the server sent until it closed the connection.
        static func exchange(_ frames: [[UInt8]], port: Int, caFile: String) async throws -> [RawHTTP2.Frame] {
            let client = try await TLSClient.connect(to: Endpoint(host: "127.0.0.1", port: port),
                                                     tls: .client(identity: nil, trust: .caFile(caFile)))
            client.write(RawHTTP2.preface + RawHTTP2.frame(.settings))
            for (index, frame) in frames.enumerated() {
                client.write(frame)
                if index % 64 == 63 { await client.waitUntilWritable() }  // 1 MB at a time
            }
            var received: [UInt8] = []
            // Until the server closes (nil) or the connection fails (an error, after its data).
            while let bytes = try? await client.read(timeout: 30) { received += bytes }
            return RawHTTP2.frames(in: received)
        }

        @Test("16 MB header blocks and an HPACK bomb sent to the mock are refused; its memory stays bounded and other connections are served")
        func mockRefusesHugeHeaderBlocks() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let mock = try await MockServeProcess(in: w)
            defer { mock.kill() }
            let identity = try IdentityLoader.load([w.dir.file("apns.pem")], passphrases: .none)
            let held = try await HTTP2Client.connect(to: Endpoint(host: "127.0.0.1", port: mock.port),
                                                     tls: .client(identity: identity, trust: .caFile(mock.caFile)))
            let request = HTTP2Request(path: "/3/device/\(Self.token)", headers: [(name: "apns-topic", value: "com.example.hardening")],
                                       body: Array(#"{"aps":{"alert":"hi"}}"#.utf8))
            #expect(try await held.send(request, timeout: 30).status == 200)
            let start = RawHTTP2.requestStart(path: "/3/device/\(Self.token)")

            // An HPACK bomb: 147 KB on the wire, about 575 MB of headers decoded.
            let bomb = try await Self.exchange(RawHTTP2.headerFrames(RawHTTP2.bomb(start: start), stream: 1, endStream: true),
                                               port: mock.port, caFile: mock.caFile)
            #expect(bomb.compactMap(\.goawayCode) == [Self.enhanceYourCalm], "\(bomb.map(\.type))")

            // 16 MB of distinct fields: HEADERS + 1,023 CONTINUATIONs.
            var fields = start
            var count = 0
            while fields.count < Self.sixteenMB {
                fields += RawHTTP2.literal("x-field-\(count)", String(repeating: "v", count: 100))
                count += 1
            }
            let many = try await Self.exchange(RawHTTP2.headerFrames(fields, stream: 1, endStream: true), port: mock.port, caFile: mock.caFile)
            #expect(many.compactMap(\.goawayCode) == [Self.enhanceYourCalm], "\(many.map(\.type))")

            // One 16 MB header value: nghttp2 itself refuses a field over 64 KiB.
            let huge = start + RawHTTP2.literal("x-huge", Array(repeating: UInt8(ascii: "v"), count: Self.sixteenMB))
            let value = try await Self.exchange(RawHTTP2.headerFrames(huge, stream: 1, endStream: true), port: mock.port, caFile: mock.caFile)
            #expect(value.compactMap(\.goawayCode) == [Self.compressionError], "\(value.map(\.type))")

            // A header block that never ends: small CONTINUATIONs, more than nghttp2 takes.
            var endless = [RawHTTP2.frame(.headers, stream: 1, start)]
            for index in 0..<100 { endless.append(RawHTTP2.frame(.continuation, stream: 1, RawHTTP2.literal("x-\(index)", "v"))) }
            let closed = try await Self.exchange(endless, port: mock.port, caFile: mock.caFile)
            #expect(!closed.contains { $0.type == RawHTTP2.FrameType.headers.rawValue }, "no answer to a block that never ended")

            // The gateway is still up and serves the connection it had and new ones.
            #expect(mock.isRunning)
            #expect(try await held.send(request, timeout: 30).status == 200)
            let push = try await mock.push(w)
            #expect(push.status == 0, "\(push)")
            // 538 MB before the header list limit; about 30 MB at rest.
            #expect(mock.peakRSS > 0 && mock.peakRSS < 128 * 1024, "mock peak RSS \(mock.peakRSS) KiB")
            held.close()
            #expect(await mock.stop() == 143)
            let log = mock.stderr
            #expect(log.components(separatedBy: "sent more than \(Self.limit) bytes of headers").count - 1 == 2, "\(log)")
            #expect(log.contains("CONTINUATION frames after one HEADERS frame"), "\(log)")
        }

        @Test("A server answering with an HPACK bomb gets one clear error from HTTP2Client and from apnskit push, not unbounded memory")
        func clientRefusesHugeHeaderBlock() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let ca = try MockCA.load(from: w.dir.file("ca"))
            let identity = try APNsIdentity(certificate: ca.server, privateKey: ca.serverKey, chain: [],
                                        certificateLabel: "server.pem", keyLabel: "server-key.pem")
            let goaways = CodeLog()
            let server = try TLSServer.start(tls: .server(identity: identity)) { connection in
                let received = await Self.answerWithBomb(connection)
                goaways.add(RawHTTP2.frames(in: received).compactMap(\.goawayCode))
            }
            defer { server.stop() }
            let caFile = w.dir.file("ca/ca-bundle.pem")

            let client = try await HTTP2Client.connect(to: Endpoint(host: "127.0.0.1", port: server.port),
                                                       tls: .client(identity: nil, trust: .caFile(caFile)))
            let request = HTTP2Request(path: "/3/device/\(Self.token)", body: Array(#"{"aps":{}}"#.utf8))
            let error = await #expect(throws: TransportError.self) { try await client.send(request, timeout: 30) }
            #expect(error?.kind == .protocolError)
            #expect(error?.message == "The server 127.0.0.1 sent more than \(Self.limit) bytes of response headers on stream 1 (our SETTINGS_MAX_HEADER_LIST_SIZE; ordinary answers carry a few hundred bytes); the connection was closed.")

            // The sender retries on new connections, then gives up with that sentence; about
            // 575 MB per attempt if the headers were kept.
            let (push, peak) = try await BoundsTests.measured(
                "/usr/bin/time -f maxrss=%M '\(Binaries.apnskit)' push apns.pem --gateway 127.0.0.1:\(server.port) --ca-file ca/ca-bundle.pem --token \(Self.token) --alert hi",
                in: w.dir.path)
            #expect(push.status == 4, "\(push)")
            #expect((push.stdout + push.stderr).contains("sent more than \(Self.limit) bytes of response headers"), "\(push)")
            #expect(peak > 0 && peak < 128 * 1024, "push peak RSS \(peak) KiB")
            // Every connection the client closed, it closed with GOAWAY ENHANCE_YOUR_CALM.
            let codes = goaways.all
            #expect(!codes.isEmpty && codes.allSatisfy { $0 == Self.enhanceYourCalm }, "\(codes)")
        }

        /// A hostile server: SETTINGS at once, then, to the first request, a response header
        /// block that is an HPACK bomb. Returns what the client sent, up to its close.
        static func answerWithBomb(_ connection: TLSServerConnection) async -> [UInt8] {
            connection.write(RawHTTP2.frame(.settings))
            var received: [UInt8] = []
            while !RawHTTP2.frames(in: received).contains(where: { $0.type == RawHTTP2.FrameType.headers.rawValue }) {
                guard let bytes = try? await connection.read(timeout: 30) else { return received }
                received += bytes
            }
            let status200: [UInt8] = [0x88]
            for frame in RawHTTP2.headerFrames(RawHTTP2.bomb(start: status200), stream: 1, endStream: true) { connection.write(frame) }
            while let bytes = try? await connection.read(timeout: 30) { received += bytes }
            return received
        }
    }
}

/// GOAWAY codes seen by the hostile server's connections (each runs in a task of its own).
final class CodeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var codes: [UInt32] = []
    func add(_ more: [UInt32]) { lock.withLock { codes += more } }
    var all: [UInt32] { lock.withLock { codes } }
}
