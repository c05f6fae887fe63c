import APNsCredentials
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
/// `@unchecked Sendable`: the listener and sessions are loop-confined and touched only inside
/// `loop.execute` closures; `port` is immutable.
public final class HTTP2Server: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTP2Request) async -> HTTP2Response

    /// The port actually bound (useful with port 0).
    public let port: Int
    private let loop: EventLoop
    private let listener: Listener
    private let state: ServerState

    /// Loop-confined bookkeeping: live sessions, so `stop()` can GOAWAY them.
    private final class ServerState: @unchecked Sendable {
        var sessions: [ObjectIdentifier: HTTP2Session] = [:]
    }

    private init(port: Int, loop: EventLoop, listener: Listener, state: ServerState) {
        self.port = port
        self.loop = loop
        self.listener = listener
        self.state = state
    }

    /// Listens on `host:port` (0 = an ephemeral port; see `port`).
    public static func start(host: String = "127.0.0.1", port: Int = 0, tls: TLSConfiguration,
                             settings: HTTP2Settings = HTTP2Settings(), loop: EventLoop = .shared,
                             handler: @escaping Handler) throws -> HTTP2Server {
        guard tls.identity != nil else {
            throw TransportError(.configuration, "A TLS server needs a certificate and key.")
        }
        let context = try SSLContext(tls, server: true)
        let (socket, boundPort) = try Socket.listen(host: host, port: port)
        let listener = Listener(socket: socket, port: boundPort)
        let state = ServerState()
        listener.onAccept = { client, peer in
            let connection = Connection(loop: loop, context: context, accepted: client, peer: peer)
            let session = HTTP2Session(connection: connection, server: true, settings: settings)
            let key = ObjectIdentifier(session)
            state.sessions[key] = session
            session.onClose = { _ in state.sessions[key] = nil }
            session.onRequest = { session, streamID, request in
                Task {
                    let response = await handler(request)
                    loop.execute { session.respond(streamID, response) }
                }
            }
            connection.start()
        }
        loop.execute { loop.register(listener) }
        return HTTP2Server(port: boundPort, loop: loop, listener: listener, state: state)
    }

    /// Stops accepting and sends GOAWAY to every connection.
    public func stop() {
        let listener = self.listener
        let state = self.state
        let loop = self.loop
        loop.execute {
            listener.onAccept = nil
            loop.deregister(listener)
            for session in state.sessions.values { session.shutdown() }
        }
    }

    /// Sends GOAWAY with `code` and a debug body (APNs: `{"reason":"Shutdown"}`) on every
    /// connection, as a gateway going down would.
    public func goAwayAll(code: UInt32 = 0, debug: String = "") {
        let state = self.state
        loop.execute { for session in state.sessions.values { session.goAway(code: code, debug: debug) } }
    }

    deinit { stop() }
}
