// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// A plain TLS client connection (no HTTP/2): the legacy binary gateway (port 2195) and the
/// feedback service speak raw bytes over TLS.
///
/// Sendable: the stream is loop-confined, in a `LoopBound` touched only on the loop thread.
package final class TLSClient: Sendable {
    package let endpoint: Endpoint
    package let handshake: TLSHandshakeInfo
    private let loop: EventLoop
    private let stream: LoopBound<RawStream>

    private init(endpoint: Endpoint, handshake: TLSHandshakeInfo, loop: EventLoop, stream: LoopBound<RawStream>) {
        self.endpoint = endpoint
        self.handshake = handshake
        self.loop = loop
        self.stream = stream
    }

    deinit {
        let stream = self.stream
        loop.execute { stream.value.connection.close(error: nil) }
    }

    package static func connect(to endpoint: Endpoint, tls: TLSConfiguration, timeout: Double = 10,
                               loop: EventLoop = .shared) async throws -> TLSClient {
        var tls = tls
        tls.applicationProtocols = []
        let context = try SSLContext(tls, server: false)
        let addresses = try await Resolver.resolve(endpoint)
        return try await withCheckedThrowingContinuation { continuation in
            loop.execute {
                let connection = Connection(loop: loop, context: context, host: endpoint.host, addresses: addresses, through: endpoint)
                let stream = RawStream(connection: connection)
                let timer = loop.schedule(after: timeout) {
                    connection.fail(TransportError(.timeout, Resolver.timeoutMessage(endpoint, connection.state, timeout)))
                }
                stream.onHandshake = { result in
                    loop.cancelTimer(timer)
                    switch result {
                    case .success(let info):
                        continuation.resume(returning: TLSClient(endpoint: endpoint, handshake: info, loop: loop, stream: LoopBound(stream, loop: loop)))
                    case .failure(let error):
                        continuation.resume(throwing: error)
                    }
                }
                connection.start()
            }
        }
    }

    /// Queues `bytes` for sending.
    package func write(_ bytes: [UInt8]) {
        let stream = self.stream
        loop.execute {
            stream.value.connection.enqueue(bytes)
            stream.value.connection.flush()
        }
    }

    /// The next bytes the server sends; nil when it closed the connection cleanly. Throws
    /// `.timeout` after `timeout` seconds of silence, `.tlsAlert` when the server sent an alert.
    package func read(timeout: Double) async throws -> [UInt8]? {
        let stream = self.stream
        let loop = self.loop
        return try await withCheckedThrowingContinuation { continuation in
            loop.execute { stream.value.read(timeout: timeout, continuation) }
        }
    }

    /// Waits until the bytes queued by `write` are mostly on the wire (or the connection
    /// ended): a writer that awaits this between batches of frames keeps memory bounded.
    package func waitUntilWritable() async {
        let stream = self.stream
        let loop = self.loop
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.execute { stream.value.waitUntilWritable(continuation) }
        }
    }

    package func close() {
        let stream = self.stream
        loop.execute { stream.value.connection.close(error: nil) }
    }
}

/// Raw bytes over a `Connection`: a buffer and at most one waiting reader.
///
/// Not `Sendable`: loop thread only; its owners hold it in a `LoopBound`.
final class RawStream: ConnectionDelegate {
    let connection: Connection
    var onHandshake: ((Result<TLSHandshakeInfo, TransportError>) -> Void)?
    private var buffer: [UInt8] = []
    private var closed = false
    private var closeError: TransportError?
    private var reader: (continuation: CheckedContinuation<[UInt8]?, Error>, timer: UInt64)?

    init(connection: Connection) {
        connection.loop.preconditionInLoop()
        self.connection = connection
        connection.delegate = self
    }

    func connectionDidHandshake(_ connection: Connection) {
        guard let info = connection.handshakeInfo else { return }
        let callback = onHandshake
        onHandshake = nil
        callback?(.success(info))
    }

    /// Input kept for a reader that has not asked yet; above it the connection stops reading
    /// (`Connection.pauseReading`) until the reader catches up. A peer that floods a slow
    /// reader (the mock's legacy port took 2.85 GB in 6 seconds) is so held back by TCP.
    static let maxBuffered = 256 * 1024

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.maxBuffered { connection.pauseReading() }
        deliver()
    }

    func connectionCanWrite(_ connection: Connection) { wakeWriters() }

    private var writers: [CheckedContinuation<Void, Never>] = []

    func waitUntilWritable(_ continuation: CheckedContinuation<Void, Never>) {
        connection.loop.preconditionInLoop()
        writers.append(continuation)
        wakeWriters()
    }

    private func wakeWriters() {
        guard closed || connection.pendingOutput < Connection.highWater / 2 else { return }
        let waiting = writers
        writers.removeAll()
        for writer in waiting { writer.resume() }
    }

    func connection(_ connection: Connection, didCloseWith error: TransportError?) {
        closed = true
        closeError = error
        wakeWriters()
        if let callback = onHandshake {
            onHandshake = nil
            callback(.failure(error ?? TransportError(.connectionClosed, "\(connection.host ?? connection.remoteAddress) closed the connection during the TLS handshake\(Connection.silentCloseCauses)")))
        }
        deliver()
    }

    func read(timeout: Double, _ continuation: CheckedContinuation<[UInt8]?, Error>) {
        connection.loop.preconditionInLoop()
        guard reader == nil else {
            continuation.resume(throwing: TransportError(.internalFailure, "Only one read may wait at a time."))
            return
        }
        let timer = connection.loop.schedule(after: timeout) { [weak self] in
            guard let self, let reader = self.reader else { return }
            self.reader = nil
            reader.continuation.resume(throwing: TransportError(.timeout, "\(self.connection.host ?? self.connection.remoteAddress) sent nothing within \(HTTP2Session.seconds(timeout))."))
        }
        reader = (continuation, timer)
        deliver()
    }

    private func deliver() {
        guard let reader else { return }
        if !buffer.isEmpty {
            self.reader = nil
            connection.loop.cancelTimer(reader.timer)
            let bytes = buffer
            buffer.removeAll()
            connection.resumeReading()
            reader.continuation.resume(returning: bytes)
        } else if closed {
            self.reader = nil
            connection.loop.cancelTimer(reader.timer)
            if let closeError { reader.continuation.resume(throwing: closeError) } else { reader.continuation.resume(returning: nil) }
        }
    }
}
