// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsTransport
import Foundation
import Testing
import TestSupport
import TransportTestSupport

/// HTTP/2 behaviour between our own client and server, each test on an event loop of its own
/// so it can check that everything it opened is freed at the end.
@Suite("Transport behaviour")
struct TransportBehaviourTests {
    let fixtures = Fixtures.shared

    /// Tracks how many handler calls run at once.
    actor Gauge {
        var current = 0
        var peak = 0
        var total = 0
        func enter() { current += 1; total += 1; peak = max(peak, current) }
        func leave() { current -= 1 }
    }

    func clientTLS() throws -> TLSConfiguration {
        .client(identity: try fixtures.clientIdentity, trust: .caFile(fixtures.caCert))
    }

    /// Runs `body` on a fresh loop, then checks that everything it opened was freed. `body` is
    /// a separate function so its locals (clients, servers) are released when it returns.
    func onOwnLoop(_ name: String, _ body: (EventLoop) async throws -> Void) async throws {
        let loop = EventLoop(name: name)
        defer { loop.shutdown() }
        try await body(loop)
        await expectAllFreed(loop)
    }

    /// Waits (bounded) until every connection on `loop` has been freed.
    func expectAllFreed(_ loop: EventLoop) async {
        #expect(await Wait.until(seconds: 30) { loop.liveConnectionCount == 0 }, "\(loop.liveConnectionCount) connections left")
    }

    @Test func serverLimitsConcurrentStreamsAndClientQueues() async throws {
        try await onOwnLoop("test.streams") { loop in
            let gauge = Gauge()
            let server = try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity), settings: HTTP2Settings(maxConcurrentStreams: 10), loop: loop) { request in
                await gauge.enter()
                // Not a wait: the handler takes a moment so that streams overlap at the limit.
                try? await Task.sleep(nanoseconds: 1_000_000)
                await gauge.leave()
                return HTTP2Response(status: 200, body: request.body)
            }
            defer { server.stop() }
            let client = try await HTTP2Client.connect(to: Endpoint(host: "localhost", port: server.port), tls: try clientTLS(), loop: loop)
            defer { client.close() }
            // Until the server's SETTINGS arrive the client cannot know the limit (HTTP/2 starts
            // unlimited) and the server refuses the excess; real senders wait, so does this test.
            try await client.ready()
            let ok = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<300 {
                    group.addTask {
                        let body = Array("request \(index)".utf8)
                        let response = try await client.send(HTTP2Request(path: "/echo", body: body))
                        return response.status == 200 && response.body == body
                    }
                }
                return try await group.allSatisfy { $0 }
            }
            #expect(ok)
            #expect(await gauge.total == 300)
            #expect(await gauge.peak <= 10)
        }
    }

    /// A quiet connection hands its TLS and output buffers back (`HTTP2Settings.releaseBuffersAfter`)
    /// and gets them again with its next request, however large; with the setting off it keeps them.
    @Test(arguments: [0.2, nil] as [Double?])
    func quietConnectionsHandBuffersBack(after quiet: Double?) async throws {
        try await onOwnLoop("test.buffers") { loop in
            var settings = HTTP2Settings(maxBodySize: 1 << 20)
            settings.releaseBuffersAfter = quiet
            let server = try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity), settings: settings, loop: loop) { request in
                HTTP2Response(status: 200, body: request.body)
            }
            defer { server.stop() }
            let client = try await HTTP2Client.connect(to: Endpoint(host: "localhost", port: server.port), tls: try clientTLS(),
                                                       settings: HTTP2Settings(maxBodySize: 1 << 20), loop: loop)
            defer { client.close() }
            #expect(try await client.send(HTTP2Request(path: "/small", body: Array("hello".utf8))).status == 200)
            let held = await Wait.reading(seconds: quiet == nil ? 1 : 10, { await server.connectionsHoldingBuffers() }, until: { $0.holding == 0 })
            #expect(held.open == 1)
            #expect(held.holding == (quiet == nil ? 1 : 0))
            // Larger than the loop's read buffer and than a TLS record: the buffers come back for it.
            let body = (0..<(200 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let response = try await client.send(HTTP2Request(path: "/large", body: body))
            #expect(response.status == 200)
            #expect(response.body == body)
        }
    }

    @Test func largeBodiesFlowBothWays() async throws {
        try await onOwnLoop("test.flow") { loop in
            // The body bound (64 KiB by default: APNs bodies are small) is raised on both sides:
            // this test is about flow-control windows, not the bound, which HostilePeerTests covers.
            let big = 4 << 20
            let server = try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity),
                                               settings: HTTP2Settings(maxBodySize: big), loop: loop) { request in
                HTTP2Response(status: 200, headers: [("x-received", String(request.body.count))], body: request.body + request.body)
            }
            defer { server.stop() }
            let client = try await HTTP2Client.connect(to: Endpoint(host: "localhost", port: server.port), tls: try clientTLS(),
                                                       settings: HTTP2Settings(maxConcurrentStreams: 100, maxBodySize: big), loop: loop)
            defer { client.close() }
            // 1.5 MiB up and 3 MiB down per stream: past the 64 KiB default and the 1 MiB stream windows.
            let body = (0..<(3 << 19)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let response = try await client.send(HTTP2Request(path: "/big", body: body))
                        #expect(response.header("x-received") == String(body.count))
                        #expect(response.body.count == 2 * body.count)
                        #expect(response.body.prefix(body.count).elementsEqual(body))
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test func manyConnectionsOnOneLoop() async throws {
        try await onOwnLoop("test.connections") { loop in
            let server = try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity, clientCA: fixtures.caCert), loop: loop) { request in
                HTTP2Response(status: 200, body: Array(request.path.utf8))
            }
            defer { server.stop() }
            let tls = try clientTLS()
            let total = try await withThrowingTaskGroup(of: Int.self) { group in
                for connection in 0..<20 {
                    group.addTask {
                        let client = try await HTTP2Client.connect(to: Endpoint(host: "127.0.0.1", port: server.port), tls: tls, loop: loop)
                        defer { client.close() }
                        var ok = 0
                        for request in 0..<25 {
                            let path = "/c\(connection)/r\(request)"
                            let response = try await client.send(HTTP2Request(method: "GET", path: path))
                            if response.status == 200 && response.bodyText == path { ok += 1 }
                        }
                        return ok
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(total == 500)
        }
    }

    /// A timed-out request resets only its stream; the server's late answer to it is
    /// dropped, and the connection goes on serving.
    @Test func requestTimeoutResetsOnlyThatStream() async throws {
        try await onOwnLoop("test.timeout") { loop in
            let (answered, signal) = AsyncStream<Void>.makeStream()
            let (release, gate) = AsyncStream<Void>.makeStream()
            let server = try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity), loop: loop) { request in
                if request.path == "/slow" {
                    for await _ in release { break }
                    signal.yield()
                    return HTTP2Response(status: 200, headers: [("x-late", "1")], body: Array("late".utf8))
                }
                return HTTP2Response(status: 200, body: Array(request.path.utf8))
            }
            defer { server.stop() }
            let client = try await HTTP2Client.connect(to: Endpoint(host: "localhost", port: server.port), tls: try clientTLS(), loop: loop)
            defer { client.close() }
            await #expect {
                _ = try await client.send(HTTP2Request(method: "GET", path: "/slow"), timeout: 0.2)
            } throws: { ($0 as? TransportError)?.kind == .timeout }
            let fast = try await client.send(HTTP2Request(method: "GET", path: "/fast"), timeout: 10)
            #expect(fast.status == 200 && fast.bodyText == "/fast")
            gate.yield()
            for await _ in answered { break }
            let after = try await client.send(HTTP2Request(method: "GET", path: "/after"), timeout: 10)
            #expect(after.status == 200 && after.bodyText == "/after")
            try await client.ping()
        }
    }

    /// One sweep timer serves every stream's deadline: a short deadline submitted after a long
    /// one must still fire on time, and the long one must not fire with it.
    @Test func shorterDeadlineAfterLongerOneStillTimesOut() async throws {
        try await onOwnLoop("test.deadlines") { loop in
            // The server answers neither request until the test has seen the short deadline
            // fire; it says when the long one has arrived (so its deadline is the earlier one set).
            let (arrived, patientArrived) = AsyncStream<Void>.makeStream()
            let (patientGate, releasePatient) = AsyncStream<Void>.makeStream()
            let (impatientGate, releaseImpatient) = AsyncStream<Void>.makeStream()
            let server = try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity), loop: loop) { request in
                if request.path == "/patient" {
                    patientArrived.yield()
                    for await _ in patientGate { break }
                } else {
                    for await _ in impatientGate { break }
                }
                return HTTP2Response(status: 200)
            }
            defer { server.stop() }
            let client = try await HTTP2Client.connect(to: Endpoint(host: "localhost", port: server.port), tls: try clientTLS(), loop: loop)
            defer { client.close() }
            async let patient = client.send(HTTP2Request(method: "GET", path: "/patient"), timeout: 30)
            for await _ in arrived { break }
            await #expect {
                _ = try await client.send(HTTP2Request(method: "GET", path: "/impatient"), timeout: 0.2)
            } throws: { error in
                let transport = error as? TransportError
                return transport?.kind == .timeout && transport?.message.contains("within 0.2 seconds") == true
            }
            releaseImpatient.yield()
            releasePatient.yield()
            #expect(try await patient.status == 200)
        }
    }

    @Test func goawayFailsLaterRequestsClearly() async throws {
        try await onOwnLoop("test.goaway") { loop in
            let server = try HTTP2Server.start(tls: .server(identity: try fixtures.serverIdentity), loop: loop) { _ in
                HTTP2Response(status: 200)
            }
            defer { server.stop() }
            let client = try await HTTP2Client.connect(to: Endpoint(host: "localhost", port: server.port), tls: try clientTLS(), loop: loop)
            defer { client.close() }
            let first = try await client.send(HTTP2Request(method: "GET", path: "/"))
            #expect(first.status == 200)
            server.goAwayAll(code: 0, debug: #"{"reason":"Shutdown"}"#)
            // After GOAWAY arrives the client refuses new requests; before it arrives, a request may
            // still be answered or be refused by the server. Either way no request hangs.
            let sawClosed = try await Wait.until(seconds: 30, every: .milliseconds(10)) {
                do {
                    _ = try await client.send(HTTP2Request(method: "GET", path: "/"), timeout: 10)
                    return false
                } catch let error as TransportError {
                    // Refused locally after GOAWAY (.notProcessed: safe to resend) or cut off by it.
                    let closed = error.kind == .notProcessed || error.kind == .connectionClosed
                    #expect(closed, "\(error)")
                    return true
                }
            }
            #expect(sawClosed)
            #expect(await Wait.until(seconds: 30) { client.isClosed })
            #expect(client.closeReason?.message.contains("GOAWAY") == true, "\(String(describing: client.closeReason))")
        }
    }
}
