// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// A plain TLS server (no HTTP/2): what a mock of the legacy binary gateway (2195) and the
/// feedback service (2196) need. Each accepted connection is handed, after its handshake, to
/// `handler` as a `TLSServerConnection` running in a task of its own.
///
/// Sendable: the listener is loop-confined, in a `LoopBound` touched only on the loop thread.
package final class TLSServer: Sendable {
    package typealias Handler = @Sendable (TLSServerConnection) async -> Void

    package let port: Int
    private let loop: EventLoop
    private let listener: LoopBound<Listener>

    private init(port: Int, loop: EventLoop, listener: LoopBound<Listener>) {
        self.port = port
        self.loop = loop
        self.listener = listener
    }

    /// `limit` caps the connections open at once; `log` hears of refused connections and
    /// accept() failures (out of file descriptors).
    package static func start(host: String = "127.0.0.1", port: Int = 0, tls: TLSConfiguration, loop: EventLoop = .shared,
                             limit: ConnectionLimit? = nil, log: @escaping @Sendable (String) -> Void = { _ in },
                             handler: @escaping Handler) throws -> TLSServer {
        guard tls.identity != nil else {
            throw TransportError(.configuration, "A TLS server needs a certificate and key.")
        }
        let context = try SSLContext(tls, server: true)
        let (socket, boundPort) = try Socket.listen(host: host, port: port)
        let listener = Listener(socket: socket, port: boundPort, loop: loop, limit: limit, log: log)
        listener.onAccept = { client, peer in
            let connection = Connection(loop: loop, context: context, accepted: client, peer: peer)
            let stream = RawStream(connection: connection)
            stream.onHandshake = { result in
                guard case .success(let info) = result else { return }
                let accepted = TLSServerConnection(handshake: info, stream: LoopBound(stream, loop: loop))
                Task { await handler(accepted) }
            }
            connection.start()
        }
        let bound = LoopBound(handingOver: listener, loop: loop)
        loop.execute { loop.register(bound.value) }
        return TLSServer(port: boundPort, loop: loop, listener: bound)
    }

    /// Stops accepting; connections already handed to the handler stay until it closes them.
    package func stop() {
        let listener = self.listener
        let loop = self.loop
        loop.execute {
            listener.value.onAccept = nil
            loop.deregister(listener.value)
        }
    }

    deinit { stop() }
}

/// One accepted TLS connection of a `TLSServer`.
///
/// Sendable: the stream is loop-confined, in a `LoopBound` touched only on the loop thread.
package final class TLSServerConnection: Sendable {
    package let handshake: TLSHandshakeInfo
    private let loop: EventLoop
    private let stream: LoopBound<RawStream>

    init(handshake: TLSHandshakeInfo, stream: LoopBound<RawStream>) {
        self.handshake = handshake
        self.loop = stream.loop
        self.stream = stream
    }

    /// A handler that returns after `closeAfterPeer` (the legacy gateway after its error
    /// response) must not cut that wait short: closing with the client's input unread would
    /// reset the connection and could destroy the answer before the client reads it.
    deinit {
        let stream = self.stream
        loop.execute { stream.value.connection.closeUnlessLingering() }
    }

    /// The certificate the client presented, if any (verified when the server requires one).
    package var clientCertificate: Certificate? { handshake.peerChain.first }

    /// The next bytes from the client; nil when it closed the connection.
    package func read(timeout: Double) async throws -> [UInt8]? {
        let stream = self.stream
        return try await withCheckedThrowingContinuation { continuation in
            loop.execute { stream.value.read(timeout: timeout, continuation) }
        }
    }

    package func write(_ bytes: [UInt8]) {
        let stream = self.stream
        loop.execute {
            stream.value.connection.enqueue(bytes)
            stream.value.connection.flush()
        }
    }

    /// Sends what is queued and close_notify, then discards whatever the client still sends
    /// (nothing of it is kept) until it closes or `timeout` seconds pass. For a server that
    /// has said its last word (the legacy gateway's error response): closing with unread
    /// input would make the kernel send RST, which can destroy that answer unread.
    package func closeAfterPeer(timeout: Double) {
        let stream = self.stream
        loop.execute { stream.value.connection.closeAfterPeer(timeout: timeout) }
    }

    /// Sends what is queued (best effort) and closes.
    package func close() {
        let stream = self.stream
        loop.execute { stream.value.connection.close(error: nil) }
    }
}
