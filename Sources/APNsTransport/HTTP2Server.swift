// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// An HTTP/2 server over TLS: the mock gateway's transport, and the peer our tests point
/// `nghttp`, `h2load` and `openssl s_client` at.
///
/// Every complete request goes to `handler`, which answers with status, headers and body;
/// handlers run as Swift tasks, so they may await (a mock can look things up, delay, ...),
/// and many run at once. Client certificates are required and verified when the
/// `TLSConfiguration` says so (`TLSConfiguration.server(identity:clientCA:)`); the handler sees
/// the presented certificate in `HTTP2Request.clientCertificate`.
///
/// Sendable: the listener and the sessions are loop-confined, in a `LoopBound` touched only on
/// the loop thread; `port` is immutable.
package final class HTTP2Server: Sendable {
    package typealias Handler = @Sendable (HTTP2Request) async -> HTTP2Response

    /// What a loop-thread handler decides: answer now (no task, no thread hop: the fast path
    /// a gateway serving 100,000 requests a second needs), or later from a task (delays).
    package enum Reply: Sendable {
        case now(HTTP2Response)
        case later(@Sendable () async -> HTTP2Response)
        /// `response`, sent `seconds` from now by a timer of the loop: no task, so a held
        /// answer (the mock's `--delay-ms`) comes on time however busy or blocked the Swift
        /// concurrency pool of the process is (an in-process mock inside a test that waits
        /// for a child process).
        case after(seconds: Double, HTTP2Response)
    }

    /// Runs on the loop thread for each complete request; must not block.
    package typealias LoopHandler = @Sendable (HTTP2Request) -> Reply

    /// The port actually bound (useful with port 0).
    package let port: Int
    private let loop: EventLoop
    private let state: LoopBound<ServerState>

    /// Loop-confined bookkeeping: the listener, and the live sessions so `stop()` can GOAWAY
    /// them. Not `Sendable`.
    private final class ServerState {
        let listener: Listener
        var sessions: [ObjectIdentifier: HTTP2Session] = [:]
        var byConnectionID: [Int: HTTP2Session] = [:]
        var nextConnectionID = 1
        var stopped = false

        init(listener: Listener) { self.listener = listener }
    }

    private init(port: Int, loop: EventLoop, state: LoopBound<ServerState>) {
        self.port = port
        self.loop = loop
        self.state = state
    }

    /// Listens on `host:port` (0 = an ephemeral port; see `port`); every request runs
    /// `handler` in a task of its own.
    package static func start(host: String = "127.0.0.1", port: Int = 0, tls: TLSConfiguration,
                             settings: HTTP2Settings = HTTP2Settings(), loop: EventLoop = .shared,
                             handler: @escaping Handler) throws -> HTTP2Server {
        try start(host: host, port: port, tls: tls, settings: settings, loop: loop,
                  loopHandler: { request in .later { await handler(request) } })
    }

    /// Listens on `host:port`; `loopHandler` decides on the loop thread. `limit` caps the
    /// connections open at once; `log` hears of refused connections, accept() failures
    /// (out of file descriptors) and, without `closed`, clients closed for breaking HTTP/2 or
    /// our limits. `closed` hears of every connection that ends, with its reason.
    package static func start(host: String = "127.0.0.1", port: Int = 0, tls: TLSConfiguration,
                             settings: HTTP2Settings = HTTP2Settings(), loop: EventLoop = .shared,
                             limit: ConnectionLimit? = nil, log: @escaping @Sendable (String) -> Void = { _ in },
                             closed: (@Sendable (ClosedConnection) -> Void)? = nil,
                             loopHandler handler: @escaping LoopHandler) throws -> HTTP2Server {
        guard tls.identity != nil else {
            throw TransportError(.configuration, "A TLS server needs a certificate and key.")
        }
        let context = try SSLContext(tls, server: true)
        let (socket, boundPort) = try Socket.listen(host: host, port: port)
        let listener = Listener(socket: socket, port: boundPort, loop: loop, limit: limit, log: log)
        let state = ServerState(listener: listener)
        listener.onAccept = { client, peer in
            let connection = Connection(loop: loop, context: context, accepted: client, peer: peer)
            let role = HTTP2ServerRole(settings: settings)
            let session = HTTP2Session(connection: connection, settings: settings, role: role)
            let key = ObjectIdentifier(session)
            state.sessions[key] = session
            let connectionID = state.nextConnectionID
            role.connectionID = connectionID
            state.nextConnectionID += 1
            state.byConnectionID[connectionID] = session
            session.onClose = { [weak session] error in
                state.sessions[key] = nil
                state.byConnectionID[connectionID] = nil
                if let closed {
                    let resets = role.resetCounts
                    closed(ClosedConnection(connectionID: connectionID, reason: session?.closeReason ?? "peer-closed",
                                            detail: session?.state.goAway.map { "the client sent GOAWAY \(HTTP2Session.describe($0))" } ?? error?.message,
                                            requests: role.requestCount, resetsOfOpenStreams: resets.counted, resetsOfAnsweredStreams: resets.free))
                } else if let error, error.kind == .protocolError {
                    log("connection #\(connectionID): \(error.message)")
                }
            }
            role.onRequest = { stream, request in
                switch handler(request) {
                case .now(let response):
                    stream.respond(response)
                case .later(let work):
                    let stream = LoopBound(stream, loop: loop)
                    Task {
                        let response = await work()
                        loop.execute { stream.value.respond(response) }
                    }
                case .after(let seconds, let response):
                    loop.schedule(after: seconds) { stream.respond(response) }
                }
            }
            connection.start()
        }
        let bound = LoopBound(handingOver: state, loop: loop)
        loop.execute { loop.register(bound.value.listener) }
        let idle = settings.idleTimeout.flatMap { $0 > 0 ? $0 : nil }
        let quiet = settings.releaseBuffersAfter.flatMap { $0 >= 0 ? $0 : nil }
        if idle != nil || quiet != nil {
            let sweep = Sweep(idleTimeout: idle, debug: settings.idleGoAwayDebug, releaseBuffersAfter: quiet)
            loop.execute { sweepIdle(bound.value, loop: loop, sweep) }
        }
        return HTTP2Server(port: boundPort, loop: loop, state: bound)
    }

    /// What the sweep of quiet connections does (`HTTP2Settings`).
    private struct Sweep {
        var idleTimeout: Double?
        var debug: String
        var releaseBuffersAfter: Double?

        /// Every half timeout or quiet time, at least once a second and at most ten times.
        var interval: Double { max(0.1, min(1, (idleTimeout ?? 2) / 2, (releaseBuffersAfter ?? 2) / 2)) }
    }

    /// One timer for all connections: each idle one gets GOAWAY (`HTTP2Session.closeIfIdle`),
    /// each quiet one hands its buffers back. Loop thread; ends when the server stops.
    private static func sweepIdle(_ state: ServerState, loop: EventLoop, _ sweep: Sweep) {
        guard !state.stopped else { return }
        let now = EventLoop.nowMillis()
        for session in Array(state.sessions.values) {
            if let quiet = sweep.releaseBuffersAfter { session.releaseBuffersIfQuiet(now: now, quiet: quiet) }
            if let timeout = sweep.idleTimeout { session.closeIfIdle(now: now, timeout: timeout, debug: sweep.debug) }
        }
        loop.schedule(after: sweep.interval) { sweepIdle(state, loop: loop, sweep) }
    }

    /// How many of the open connections hold their TLS and output buffers (tests of the sweep).
    package func connectionsHoldingBuffers() async -> (open: Int, holding: Int) {
        let state = self.state
        return await withCheckedContinuation { continuation in
            loop.execute {
                let sessions = state.value.sessions.values
                continuation.resume(returning: (sessions.count, sessions.filter { $0.connection.holdsBuffers }.count))
            }
        }
    }

    /// Stops accepting and sends GOAWAY to every connection.
    package func stop() {
        let state = self.state
        let loop = self.loop
        loop.execute {
            let state = state.value
            state.stopped = true
            state.listener.onAccept = nil
            loop.deregister(state.listener)
            for session in state.sessions.values { session.shutdown() }
        }
    }

    /// Sends GOAWAY on one connection (the mock's idle timeout: `{"reason":"IdleTimeout"}`);
    /// nothing happens if that connection is already gone.
    package func goAway(connectionID: Int, code: UInt32 = 0, debug: String = "") {
        let state = self.state
        loop.execute { state.value.byConnectionID[connectionID]?.goAway(code: code, debug: debug) }
    }

    /// Sends GOAWAY with `code` and a debug body (the caller's wording, e.g. a JSON reason) on every
    /// connection, as a gateway going down would.
    package func goAwayAll(code: UInt32 = 0, debug: String = "") {
        let state = self.state
        loop.execute { for session in state.value.sessions.values { session.goAway(code: code, debug: debug) } }
    }

    deinit { stop() }
}

/// A connection an `HTTP2Server` saw end, and why: `reason` is one word a log and stats count
/// by (`goaway-sent:CODE`, `goaway-received:CODE`, `idle-timeout`, `tls-failure`,
/// `protocol-error`, `peer-reset`, `peer-closed`, `dropped`, `server-stopped`).
package struct ClosedConnection: Sendable {
    package let connectionID: Int
    package let reason: String
    /// The error's sentence, or the GOAWAY the peer sent; nil for a plain close.
    package let detail: String?
    package let requests: Int
    /// Resets the client sent: of open, unanswered streams (the rapid-reset budget's), and of
    /// streams already answered or closed (free).
    package let resetsOfOpenStreams: Int
    package let resetsOfAnsweredStreams: Int

    /// "connection #3 closed: goaway-sent:ENHANCE_YOUR_CALM (1,001 resets ...): sentence".
    package var logLine: String {
        var line = "connection #\(connectionID) closed: \(reason) after \(requests) request\(requests == 1 ? "" : "s")"
        if resetsOfOpenStreams + resetsOfAnsweredStreams > 0 {
            line += ", \(resetsOfAnsweredStreams) reset\(resetsOfAnsweredStreams == 1 ? "" : "s") of answered streams (free), \(resetsOfOpenStreams) of open ones"
        }
        if let detail { line += ": \(detail)" }
        return line
    }
}
