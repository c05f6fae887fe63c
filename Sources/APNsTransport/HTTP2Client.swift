// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation
import Synchronized

/// An HTTP/2 client connection over TLS: the provider API's transport.
///
/// `connect` resolves, connects, handshakes (presenting the identity in `TLSConfiguration`)
/// and returns once TLS is up, with `handshake` describing it. Requests are multiplexed: call
/// `send` from as many tasks as you like; nghttp2 keeps requests beyond the server's
/// MAX_CONCURRENT_STREAMS queued until a stream frees up.
///
/// Sendable: the loop-confined session is in a `LoopBound`, touched only on the loop thread;
/// what other threads read is in `HTTP2ClientStatus`.
package final class HTTP2Client: Sendable {
    package let endpoint: Endpoint
    package let handshake: TLSHandshakeInfo
    private let loop: EventLoop
    private let session: LoopBound<Session>
    private let status: HTTP2ClientStatus

    /// The core session and its client role (which the core owns; kept here typed).
    fileprivate struct Session {
        let core: HTTP2Session
        let client: HTTP2ClientRole
    }

    private init(endpoint: Endpoint, handshake: TLSHandshakeInfo, loop: EventLoop, session: LoopBound<Session>, status: HTTP2ClientStatus) {
        self.endpoint = endpoint
        self.handshake = handshake
        self.loop = loop
        self.session = session
        self.status = status
    }

    /// False once the connection closed or the server sent GOAWAY: new requests would fail.
    /// Readable from any thread (the sender's pool asks before every request).
    package var isOpen: Bool { status.isOpen }

    /// True once the connection closed or the server sent GOAWAY: send nothing more, open a
    /// new client. `closeReason` says why when it was not a clean close.
    package var isClosed: Bool { !status.isOpen }
    package var closeReason: TransportError? { status.closeReason }

    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS as last seen (100 until its SETTINGS arrive).
    package var peerMaxConcurrentStreams: Int { status.maxConcurrentStreams }

    deinit {
        let session = self.session
        loop.execute { session.value.core.shutdown() }
    }

    /// Connects to `endpoint`. Throws `TransportError` (.dns, .connect, .timeout, .tls,
    /// .tlsAlert, .protocolError when the server does not agree to h2). With `healthCheck`, a
    /// connection quiet for its idle interval is pinged and closed when the PING goes
    /// unanswered (`isOpen` turns false).
    ///
    /// Cancelling the calling task ends the attempt: before the TLS context is made, after the
    /// name is resolved, or on the loop while it connects or handshakes (`TransportError`
    /// `.cancelled`). It returns only once the attempt is over, so an owner that awaited it
    /// (`close()`) knows nothing of it still runs (issue 32: a process exiting while a
    /// connect still made its `SSL_CTX` crashed in OpenSSL's cleanup).
    package static func connect(to endpoint: Endpoint, tls: TLSConfiguration, settings: HTTP2Settings = HTTP2Settings(maxConcurrentStreams: 100),
                               timeout: Double = 10, healthCheck: HTTP2HealthCheck? = nil, loop: EventLoop = .shared) async throws -> HTTP2Client {
        let cancelled = TransportError(.cancelled, "The connection to \(endpoint) was given up (the task was cancelled).")
        if Task.isCancelled { throw cancelled }
        let context = try SSLContext(tls, server: false)
        let addresses = try await Resolver.resolve(endpoint)
        if Task.isCancelled { throw cancelled }
        let status = HTTP2ClientStatus()
        // The attempt in progress, for a cancel from another thread.
        let attempt = PendingConnect()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                loop.execute {
                    start(endpoint: endpoint, context: context, addresses: addresses, settings: settings, status: status, timeout: timeout,
                          healthCheck: healthCheck, loop: loop, attempt: attempt, cancelled: cancelled, continuation)
                }
            }
        } onCancel: {
            attempt.cancel(on: loop, cancelled)
        }
    }

    /// On the loop: starts the connection whose handshake resumes `continuation` (at once with
    /// `cancelled` when the attempt was cancelled before it began).
    private static func start(endpoint: Endpoint, context: SSLContext, addresses: [SocketAddress], settings: HTTP2Settings,
                              status: HTTP2ClientStatus, timeout: Double, healthCheck: HTTP2HealthCheck?, loop: EventLoop,
                              attempt: PendingConnect, cancelled: TransportError, _ continuation: CheckedContinuation<HTTP2Client, any Error>) {
        let connection = Connection(loop: loop, context: context, host: endpoint.host, addresses: addresses, through: endpoint)
        guard attempt.begin(connection, loop: loop) else { return continuation.resume(throwing: cancelled) }
        let client = HTTP2ClientRole()
        let session = HTTP2Session(connection: connection, settings: settings, role: client)
        session.onClose = { error in status.markGone(error) }
        client.onGoAway = { status.markClosed(TransportError(.connectionClosed, "The server sent GOAWAY: the connection takes no new requests.")) }
        client.onRemoteSettings = { status.setMaxConcurrentStreams($0) }
        let timer = loop.schedule(after: timeout) {
            connection.fail(TransportError(.timeout, Resolver.timeoutMessage(endpoint, connection.state, timeout)))
        }
        session.onHandshake = { result in
            loop.cancelTimer(timer)
            attempt.end()
            switch result {
            case .success(let info):
                if let healthCheck { session.startHealthCheck(healthCheck) }
                let bound = LoopBound(Session(core: session, client: client), loop: loop)
                continuation.resume(returning: HTTP2Client(endpoint: endpoint, handshake: info, loop: loop, session: bound, status: status))
            case .failure(let error):
                continuation.resume(throwing: error)
            }
        }
        connection.start()
    }

    /// Waits for the server's SETTINGS frame: proof the server accepted the connection. With
    /// TLS 1.3 a server that rejects the client certificate says so only now, as an alert.
    package func ready(timeout: Double = 10) async throws {
        let session = self.session
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            loop.execute { session.value.client.waitForSettings(timeout: timeout, in: session.value.core, continuation) }
        }
    }

    /// Sends one request and returns its response. Throws on reset, GOAWAY, connection loss,
    /// or when `timeout` seconds pass without a complete response.
    /// Cancelling the calling task resets the request's stream (RST_STREAM CANCEL) and throws
    /// `TransportError` `.cancelled` at once; a late answer is dropped.
    package func send(_ request: HTTP2Request, timeout: Double? = nil) async throws -> HTTP2Response {
        let cancellation = RequestCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                submit(request, timeout: timeout, cancellation: cancellation) { continuation.resume(with: $0) }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// Sends one request; `completion` runs exactly once, on the event loop thread, with the
    /// response or the `TransportError` (`send`'s outcomes). The completion must not block.
    /// `cancellation`, when given, lets the caller give the request up later.
    package func submit(_ request: HTTP2Request, timeout: Double? = nil, cancellation: RequestCancellation? = nil,
                       completion: @escaping @Sendable (Result<HTTP2Response, TransportError>) -> Void) {
        submit(request, timeout: timeout, cancellation: cancellation, to: SendableClosureReceiver(completion))
    }

    /// Sends one request; `receiver` is told the outcome exactly once, on the event loop
    /// thread. No task and no thread hop per request: a sender that submits its next request
    /// from `received` keeps the whole pipeline on the loop thread, and one whose request
    /// object is the receiver allocates nothing more for the answer's way back.
    package func submit(_ request: HTTP2Request, timeout: Double? = nil, cancellation: RequestCancellation? = nil,
                       to receiver: any HTTP2ResponseReceiver & Sendable) {
        let session = self.session
        if loop.inLoop {
            session.value.submit(request, timeout: timeout, cancellation: cancellation, receiver: receiver)
        } else {
            loop.execute { session.value.submit(request, timeout: timeout, cancellation: cancellation, receiver: receiver) }
        }
    }

    /// Sends a PING and waits for its acknowledgement.
    package func ping() async throws {
        let session = self.session
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            loop.execute { session.value.core.ping(continuation) }
        }
    }

    /// Sends GOAWAY and closes once in-flight requests are answered.
    package func close() {
        let session = self.session
        loop.execute { session.value.core.shutdown() }
    }

    /// `close()`, then waits until the connection is gone (in-flight requests answered or
    /// failed, the socket closed). After its GOAWAY and close_notify the client waits for the
    /// server to close first, at most 2 seconds (`HTTP2ClientRole.bothSidesDone` says why).
    package func closeAndWait() async {
        close()
        await status.waitUntilGone()
    }
}

extension HTTP2Client.Session {
    func submit(_ request: HTTP2Request, timeout: Double?, cancellation: RequestCancellation?, receiver: any HTTP2ResponseReceiver) {
        client.submit(request, timeout: timeout, cancellation: cancellation, in: core, receiver: receiver)
    }
}

/// A connect in progress, which a cancel from another thread ends on the loop: the
/// connection while it connects or handshakes, or a flag the loop reads before it starts.
private final class PendingConnect: Sendable {
    private struct State {
        var cancelled = false
        var connection: LoopBound<Connection>?
    }

    private let state = Locked(State())

    /// On the loop: the attempt is under way; false when it was cancelled already (it must
    /// not start).
    func begin(_ connection: Connection, loop: EventLoop) -> Bool {
        state.withLock { state in
            if state.cancelled { return false }
            state.connection = LoopBound(connection, loop: loop)
            return true
        }
    }

    /// On the loop: the handshake ended (either way); a late cancel has nothing to end.
    func end() {
        state.withLock { $0.connection = nil }
    }

    /// Fails the attempt with `error` on its loop (its handshake callback resumes the caller).
    func cancel(on loop: EventLoop, _ error: TransportError) {
        let begun: Bool = state.withLock { state in
            state.cancelled = true
            return state.connection != nil
        }
        guard begun else { return }
        // Looked up again on the loop: a handshake that ended meanwhile is left alone.
        loop.execute { [self] in state.withLock { $0.connection }?.value.fail(error) }
    }
}

/// The part of a client session's state other threads may read, behind a lock.
final class HTTP2ClientStatus: Sendable {
    private struct State {
        var open = true
        var streams = 100
        var reason: TransportError?
    }

    private let state = Locked(State())
    /// Open once the connection is closed for good.
    private let gone = Latch()

    var isOpen: Bool { state.withLock { $0.open } }
    var closeReason: TransportError? { state.withLock { $0.reason } }
    var maxConcurrentStreams: Int { state.withLock { $0.streams } }
    /// Marks the connection unusable; the first reason given is kept.
    func markClosed(_ error: TransportError? = nil) {
        state.withLock { state in
            state.open = false
            if state.reason == nil { state.reason = error }
        }
    }
    func setMaxConcurrentStreams(_ value: Int) { state.withLock { $0.streams = value } }

    /// The connection is closed for good: `waitUntilGone` returns (after `isOpen` and
    /// `closeReason` say so).
    func markGone(_ error: TransportError?) {
        markClosed(error)
        gone.open()
    }

    func waitUntilGone() async {
        await gone.wait()
    }
}
