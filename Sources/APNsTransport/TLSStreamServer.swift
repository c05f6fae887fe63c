import APNsCredentials
import Foundation

/// The server side of a raw TLS byte stream (no HTTP/2): the mock's legacy binary gateway
/// and feedback service. Everything happens on the loop thread: `StreamHandler` callbacks
/// arrive there and `StreamPeer` methods must be called from them.
public protocol StreamHandler: AnyObject {
    /// The TLS handshake finished; `peer.clientCertificate` is what the client presented.
    func streamOpened(_ peer: StreamPeer)
    func stream(_ peer: StreamPeer, received bytes: [UInt8])
    func streamClosed(_ peer: StreamPeer, error: TransportError?)
}

/// One accepted connection as its handler sees it.
///
/// `@unchecked Sendable`: loop-confined; only handler callbacks (on the loop) touch it.
public final class StreamPeer: @unchecked Sendable {
    fileprivate let connection: Connection
    public let id: Int

    fileprivate init(connection: Connection, id: Int) {
        self.connection = connection
        self.id = id
    }

    public var remoteAddress: String { connection.remoteAddress }
    public var clientCertificate: Certificate? { connection.handshakeInfo?.peerChain.first }

    /// Queues `bytes` and starts sending them.
    public func write(_ bytes: [UInt8]) {
        connection.enqueue(bytes)
        connection.flush()
    }

    /// Sends what is queued (best effort) and closes with a TLS close_notify.
    public func close() { connection.close(error: nil) }
}

/// Listens for TLS connections and gives each a `StreamHandler` made by `makeHandler`.
public final class TLSStreamServer: @unchecked Sendable {
    public typealias HandlerFactory = @Sendable () -> StreamHandler

    public let port: Int
    private let loop: EventLoop
    private let listener: Listener
    private let state: State

    private final class State: @unchecked Sendable {
        var streams: [Int: Bridge] = [:]
        var nextID = 1
    }

    /// Connects a `Connection`'s delegate calls to a `StreamHandler`.
    private final class Bridge: ConnectionDelegate {
        let peer: StreamPeer
        let handler: StreamHandler
        let onFinish: () -> Void

        init(peer: StreamPeer, handler: StreamHandler, onFinish: @escaping () -> Void) {
            self.peer = peer
            self.handler = handler
            self.onFinish = onFinish
        }

        func connectionDidHandshake(_ connection: Connection) { handler.streamOpened(peer) }
        func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
            handler.stream(peer, received: Array(bytes))
        }
        func connectionCanWrite(_ connection: Connection) {}
        func connection(_ connection: Connection, didCloseWith error: TransportError?) {
            handler.streamClosed(peer, error: error)
            onFinish()
        }
    }

    private init(port: Int, loop: EventLoop, listener: Listener, state: State) {
        self.port = port
        self.loop = loop
        self.listener = listener
        self.state = state
    }

    public static func start(host: String = "127.0.0.1", port: Int = 0, tls: TLSConfiguration, loop: EventLoop = .shared,
                             makeHandler: @escaping HandlerFactory) throws -> TLSStreamServer {
        guard tls.identity != nil else { throw TransportError(.configuration, "A TLS server needs a certificate and key.") }
        var tls = tls
        tls.applicationProtocols = []
        let context = try SSLContext(tls, server: true)
        let (socket, boundPort) = try Socket.listen(host: host, port: port)
        let listener = Listener(socket: socket, port: boundPort)
        let state = State()
        listener.onAccept = { client, peerAddress in
            let connection = Connection(loop: loop, context: context, accepted: client, peer: peerAddress)
            let id = state.nextID
            state.nextID += 1
            let bridge = Bridge(peer: StreamPeer(connection: connection, id: id), handler: makeHandler()) {
                state.streams[id] = nil
            }
            state.streams[id] = bridge
            connection.delegate = bridge
            connection.start()
        }
        loop.execute { loop.register(listener) }
        return TLSStreamServer(port: boundPort, loop: loop, listener: listener, state: state)
    }

    /// Stops accepting and closes every connection.
    public func stop() {
        let listener = self.listener
        let state = self.state
        let loop = self.loop
        loop.execute {
            listener.onAccept = nil
            loop.deregister(listener)
            for bridge in state.streams.values { bridge.peer.close() }
        }
    }

    deinit { stop() }
}
