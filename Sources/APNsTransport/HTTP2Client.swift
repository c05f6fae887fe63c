import APNsCredentials
import Foundation

/// An HTTP/2 client connection over TLS: the provider API's transport.
///
/// `connect` resolves, connects, handshakes (presenting the identity in `TLSConfiguration`)
/// and returns once TLS is up, with `handshake` describing it. Requests are multiplexed: call
/// `send` from as many tasks as you like; nghttp2 keeps requests beyond the server's
/// MAX_CONCURRENT_STREAMS queued until a stream frees up.
///
/// `@unchecked Sendable`: the only mutable state is the loop-confined `session`, touched
/// exclusively inside `loop.execute` closures.
public final class HTTP2Client: @unchecked Sendable {
    public let endpoint: Endpoint
    public let handshake: TLSHandshakeInfo
    private let loop: EventLoop
    private let session: HTTP2Session
    private let status: ClientStatus

    /// Written on the loop thread when the connection ends, read from any thread.
    final class ClientStatus: @unchecked Sendable {
        private let lock = NSLock()
        private var closed = false
        private var error: TransportError?

        func markClosed(_ error: TransportError?) {
            lock.lock(); closed = true; self.error = error; lock.unlock()
        }

        var isClosed: Bool { lock.lock(); defer { lock.unlock() }; return closed }
        var reason: TransportError? { lock.lock(); defer { lock.unlock() }; return error }
    }

    private init(endpoint: Endpoint, handshake: TLSHandshakeInfo, loop: EventLoop, session: HTTP2Session, status: ClientStatus) {
        self.endpoint = endpoint
        self.handshake = handshake
        self.loop = loop
        self.session = session
        self.status = status
    }

    deinit {
        let session = self.session
        loop.execute { session.shutdown() }
    }

    /// Connects to `endpoint`. Throws `TransportError` (.dns, .connect, .timeout, .tls,
    /// .tlsAlert, .protocolError when the server does not agree to h2).
    public static func connect(to endpoint: Endpoint, tls: TLSConfiguration, settings: HTTP2Settings = HTTP2Settings(maxConcurrentStreams: 100),
                               timeout: Double = 10, loop: EventLoop = .shared) async throws -> HTTP2Client {
        let context = try SSLContext(tls, server: false)
        let addresses = try await Resolver.resolve(endpoint)
        return try await withCheckedThrowingContinuation { continuation in
            loop.execute {
                let connection = Connection(loop: loop, context: context, host: endpoint.host, addresses: addresses)
                let session = HTTP2Session(connection: connection, server: false, settings: settings)
                let status = ClientStatus()
                session.onClose = { error in status.markClosed(error) }
                let timer = loop.schedule(after: timeout) {
                    connection.fail(TransportError(.timeout, Resolver.timeoutMessage(endpoint, connection.state, timeout)))
                }
                session.onHandshake = { result in
                    loop.cancelTimer(timer)
                    switch result {
                    case .success(let info):
                        continuation.resume(returning: HTTP2Client(endpoint: endpoint, handshake: info, loop: loop, session: session, status: status))
                    case .failure(let error):
                        continuation.resume(throwing: error)
                    }
                }
                connection.start()
            }
        }
    }

    /// Waits for the server's SETTINGS frame: proof the server accepted the connection. With
    /// TLS 1.3 a server that rejects the client certificate says so only now, as an alert.
    public func ready(timeout: Double = 10) async throws {
        let session = self.session
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            loop.execute { session.waitForSettings(timeout: timeout, continuation) }
        }
    }

    /// Whether the connection has ended (GOAWAY, peer close, failure): a sender then makes a
    /// new client. `closeReason` says why when it was not a clean close.
    public var isClosed: Bool { status.isClosed }
    public var closeReason: TransportError? { status.reason }

    /// Sends one request and returns its response. Throws on reset, GOAWAY, connection loss,
    /// or when `timeout` seconds pass without a complete response.
    public func send(_ request: HTTP2Request, timeout: Double? = nil) async throws -> HTTP2Response {
        let session = self.session
        return try await withCheckedThrowingContinuation { continuation in
            loop.execute { session.submit(request, timeout: timeout, continuation: continuation) }
        }
    }

    /// Sends a PING and waits for its acknowledgement.
    public func ping() async throws {
        let session = self.session
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            loop.execute { session.ping(continuation) }
        }
    }

    /// Sends GOAWAY and closes once in-flight requests are answered.
    public func close() {
        let session = self.session
        loop.execute { session.shutdown() }
    }
}
