import OpenSSLCore
package import CNGHTTP2
import Foundation

/// One nghttp2 session (client or server role) on top of one `Connection`.
///
/// Owns the `nghttp2_session*` (freed in deinit). nghttp2 does the protocol work — settings,
/// HPACK, flow control and WINDOW_UPDATEs, MAX_CONCURRENT_STREAMS (requests beyond the peer's
/// limit wait in nghttp2's queue), GOAWAY, RST_STREAM, PING acks — and this class moves bytes
/// between it and the TLS connection and turns frames into requests and responses.
///
/// `@unchecked Sendable`: confined to the loop thread, like its connection.
final class HTTP2Session: ConnectionDelegate, @unchecked Sendable {
    let connection: Connection
    let isServer: Bool
    private var session: OpaquePointer?
    let settings: HTTP2Settings

    /// What a client request's submitter is told, exactly once, on the loop thread.
    typealias ClientCompletion = (Result<HTTP2Response, TransportError>) -> Void

    // Client side. Streams are classes: they are updated in place from nghttp2's callbacks
    // (a header, a chunk at a time), and a struct in a dictionary would be copied each time.
    private final class ClientStream {
        let completion: ClientCompletion
        var status = 0
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        var requestBody: [UInt8]
        var offset = 0
        /// `EventLoop.nowMillis()` after which the request counts as unanswered (nil: never).
        let deadline: UInt64?
        let timeout: Double
        /// Header list bytes received so far (see `HTTP2Settings.maxHeaderListSize`).
        var headerBytes = 0
        /// The caller's handle, asked just before the HEADERS go out (`beforeFrameSend`).
        let cancellation: RequestCancellation?

        init(completion: @escaping ClientCompletion, requestBody: [UInt8], timeout: Double?, cancellation: RequestCancellation?) {
            self.completion = completion
            self.cancellation = cancellation
            self.requestBody = requestBody
            self.timeout = timeout ?? 0
            deadline = timeout.map { EventLoop.nowMillis() + UInt64(max(0, $0) * 1000) }
        }
    }
    private var clientStreams: [Int32: ClientStream] = [:]
    /// One timer per session sweeps the streams for missed deadlines (armed while any stream
    /// has one), instead of one timer per request: at 100,000 requests a second the loop's
    /// timer table would otherwise churn on every request.
    private var sweepTimer: UInt64?
    private var sweepDeadline: UInt64 = .max
    /// Waiting for PING acknowledgements, oldest first (the peer acknowledges in order).
    private var pings: [(Result<Void, TransportError>) -> Void] = []
    /// `EventLoop.nowMillis()` when the peer last sent anything: the idle health check pings
    /// only a connection that has been quiet (see HTTP2HealthCheck.swift).
    var lastInputMillis = EventLoop.nowMillis()
    /// The health check's pending timer, cancelled when the connection closes.
    var healthTimer: UInt64?
    private var readyWaiters: [(continuation: CheckedContinuation<Void, Error>, timer: UInt64)] = []
    private(set) var receivedSettings = false

    // Server side. A `let`: nghttp2 calls back into it for every header, and reading a
    // constant needs neither an exclusivity check nor a retain.
    private let serverStreams: HTTP2ServerStreams?
    /// Refilled for every request (client) or response (server), swapped into a local meanwhile.
    private var nameValueScratch = NameValueBuffer()
    /// Server: called on the loop thread with each complete request; answer with `respond`.
    var onRequest: ((HTTP2Session, Int32, HTTP2Request) -> Void)?
    /// Server: stamped on every request (`HTTP2Request.connectionID`).
    var connectionID = 0
    /// True inside `nghttp2_session_mem_recv`: responses submitted by callbacks then are sent
    /// together by the `produce()` that follows it, one TLS write for a whole read's worth of
    /// answers instead of one per answer (and nghttp2 is not re-entered from its callbacks).
    private var receiving = false
    /// Server: streams answered before the client finished sending (a body over
    /// `maxBodySize`): reset with NO_ERROR once the answer is out, so the client stops
    /// sending (RFC 9113 section 8.1).
    private var resetAfterAnswer: Set<Int32> = []
    /// Server: `EventLoop.nowMillis()` of the last request frame or answer (see
    /// `HTTP2Settings.idleTimeout`), and whether the idle GOAWAY went out already.
    private(set) var lastActivity = EventLoop.nowMillis()
    private var idleGoAwaySent = false

    /// Called once when the TLS handshake finished (or failed before that).
    var onHandshake: ((Result<TLSHandshakeInfo, TransportError>) -> Void)?
    /// Called once when the connection is gone.
    var onClose: ((TransportError?) -> Void)?
    private(set) var closeError: TransportError?
    private(set) var closed = false
    /// Set when the peer broke one of our limits (a header list over `maxHeaderListSize`): the
    /// session is being terminated, and this is why, for the server's log and the client's
    /// callers, instead of a bare "connection closed".
    private(set) var violation: TransportError?
    /// GOAWAY from the peer: error code and debug data (often a JSON reason).
    private(set) var goaway: (code: UInt32, debug: String, lastStreamID: Int32)?
    /// Client: told when the peer's SETTINGS arrive (its MAX_CONCURRENT_STREAMS) and when a
    /// GOAWAY arrives, so `HTTP2Client` can answer `isOpen` without hopping onto the loop.
    var onRemoteSettings: ((Int) -> Void)?
    var onGoAway: (() -> Void)?

    init(connection: Connection, server: Bool, settings: HTTP2Settings) {
        self.connection = connection
        self.isServer = server
        serverStreams = server ? HTTP2ServerStreams(maxHeaderListSize: Int(settings.maxHeaderListSize), maxBodySize: settings.maxBodySize,
                                                   keptHeaders: settings.keptRequestHeaders) : nil
        self.settings = settings
        connection.delegate = self
    }

    deinit {
        if let session { nghttp2_session_del(session) }
    }

    // MARK: ConnectionDelegate

    func connectionDidHandshake(_ connection: Connection) {
        guard let info = connection.handshakeInfo else { return }
        if !isServer, connection.context.configuration.verification != .reportOnly, info.alpn != "h2" {
            connection.fail(TransportError(.protocolError, "The server \(connection.host ?? connection.remoteAddress) does not speak HTTP/2: it did not agree to ALPN h2."))
            return
        }
        serverStreams?.connectionOpened(clientCertificate: info.peerChain.first, connectionID: connectionID,
                                        remoteAddress: connection.remoteAddress)
        do {
            try startSession(certificateless: isServer && info.peerChain.isEmpty)
        } catch {
            connection.fail(error as? TransportError ?? TransportError(.internalFailure, "\(error)"))
            return
        }
        let callback = onHandshake
        onHandshake = nil
        callback?(.success(info))
        produce()
    }

    /// A client feeds nghttp2 what it read in slices of this many bytes and sends after each:
    /// a 16 KB TLS record holds about a hundred responses, and a sender that refills streams
    /// from their completions would otherwise hold the new requests back until all hundred are
    /// handled, leaving the server idle meanwhile.
    static let clientReceiveSlice = 2048

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        guard let session, let base = bytes.baseAddress else { return }
        lastInputMillis = EventLoop.nowMillis()
        let slice = isServer ? bytes.count : Self.clientReceiveSlice
        var offset = 0
        while offset < bytes.count, !closed {
            let count = min(slice, bytes.count - offset)
            receiving = true
            let consumed = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self) + offset, count)
            receiving = false
            if consumed < 0 {
                connection.fail(violation ?? receiveError(Int32(consumed)))
                return
            }
            if violation != nil {
                if nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM.rawValue) != 0 {
                    connection.fail(violation!)
                    return
                }
                produce()
                return
            }
            offset += count
            produce()
        }
    }

    func connectionCanWrite(_ connection: Connection) { produce() }

    func connection(_ connection: Connection, didCloseWith error: TransportError?) {
        closed = true
        var failure = error ?? violation ?? TransportError(.connectionClosed, "The connection to \(connection.host ?? connection.remoteAddress) was closed.")
        if error == nil, violation == nil, let goaway {
            failure = TransportError(.connectionClosed, "The server closed the connection with GOAWAY \(Self.errorName(goaway.code))\(goaway.debug.isEmpty ? "" : " (\(goaway.debug))").")
        }
        closeError = error
        if let callback = onHandshake {
            onHandshake = nil
            callback(.failure(failure))
        }
        let streams = clientStreams
        clientStreams.removeAll()
        connection.loop.cancelTimer(sweepTimer)
        sweepTimer = nil
        for (id, stream) in streams {
            stream.completion(.failure(wasNotProcessed(id) ? TransportError(.notProcessed, "\(failure.message) The request was not processed and may be resent.") : failure))
        }
        connection.loop.cancelTimer(healthTimer)
        healthTimer = nil
        let waitingPings = pings
        pings.removeAll()
        for ping in waitingPings { ping(.failure(failure)) }
        for waiter in readyWaiters {
            connection.loop.cancelTimer(waiter.timer)
            waiter.continuation.resume(throwing: failure)
        }
        readyWaiters.removeAll()
        serverStreams?.removeAll()
        onRequest = nil
        let close = onClose
        onClose = nil
        close?(error ?? violation ?? (goaway != nil ? failure : nil))
    }

    // MARK: session

    /// Starts nghttp2 without a handshake, for a detached connection (`HTTP2SessionFuzzing`).
    func startDetached() throws {
        try startSession(certificateless: false)
        produce()
    }

    /// `certificateless`: a server's client presented no certificate (it authenticates in its
    /// requests instead), and is offered `maxConcurrentStreamsWithoutClientCertificate` streams
    /// if that is set.
    private func startSession(certificateless: Bool) throws {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw TransportError(.internalFailure, "nghttp2 could not allocate its callbacks.")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            return Unmanaged<HTTP2Session>.fromOpaque(user).takeUnretainedValue().beginHeaders(frame)
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value, let user else { return 0 }
            let session = Unmanaged<HTTP2Session>.fromOpaque(user).takeUnretainedValue()
            if let server = session.serverStreams {
                // Bytes straight into the request: no String for a name it already knows.
                if session.violation != nil { return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue }
                let id = frame.pointee.hd.stream_id
                let withinLimit = server.header(id, name: UnsafeBufferPointer(start: name, count: nameLength),
                                                value: UnsafeBufferPointer(start: value, count: valueLength))
                return withinLimit ? 0 : session.refuseHeaderList(id)
            }
            let n = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
            let v = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
            return session.header(frame, n, v)
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            guard let user, let data else { return 0 }
            Unmanaged<HTTP2Session>.fromOpaque(user).takeUnretainedValue().dataChunk(streamID, UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            return Unmanaged<HTTP2Session>.fromOpaque(user).takeUnretainedValue().frameReceived(frame)
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, user in
            guard let user else { return 0 }
            Unmanaged<HTTP2Session>.fromOpaque(user).takeUnretainedValue().streamClosed(streamID, errorCode)
            return 0
        }
        if !isServer {
            nghttp2_session_callbacks_set_before_frame_send_callback(callbacks) { _, frame, user in
                guard let frame, let user else { return 0 }
                return Unmanaged<HTTP2Session>.fromOpaque(user).takeUnretainedValue().beforeFrameSend(frame)
            }
        }
        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else {
            throw TransportError(.internalFailure, "nghttp2 could not allocate its options.")
        }
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_max_continuations(option, Self.maxContinuations)
        let user = Unmanaged.passUnretained(self).toOpaque()
        var created: OpaquePointer?
        // Server: closed streams are not kept. nghttp2 keeps them only to maintain RFC 7540
        // priority trees, which RFC 9113 deprecated; keeping them cost about 0.5 us per request.
        if isServer { nghttp2_option_set_no_closed_streams(option, 1) }
        let rc = isServer ? nghttp2_session_server_new2(&created, callbacks, user, option)
                          : nghttp2_session_client_new2(&created, callbacks, user, option)
        guard rc == 0, let created else { throw TransportError(.internalFailure, "nghttp2 could not create a session.") }
        session = created
        var entries = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: certificateless ? settings.maxConcurrentStreamsWithoutClientCertificate ?? settings.maxConcurrentStreams : settings.maxConcurrentStreams),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: settings.initialWindowSize),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: settings.maxHeaderListSize),
        ]
        if !isServer {
            entries.append(nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0))
        }
        guard nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), entries, entries.count) == 0 else {
            throw TransportError(.internalFailure, "nghttp2 refused our SETTINGS.")
        }
        guard nghttp2_session_set_local_window_size(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, settings.connectionWindowSize) == 0 else {
            throw TransportError(.internalFailure, "nghttp2 refused the connection window size \(settings.connectionWindowSize).")
        }
    }

    /// Moves nghttp2's pending frames into the connection (until its buffer is full) and
    /// closes when neither side has anything more to say.
    func produce() {
        guard let session, connection.state == .open else { return }
        // Fill the connection's buffer, write it, repeat: stop when nghttp2 has nothing more
        // (or flow control holds it back) or when the socket is full — then POLLOUT brings us
        // back through connectionCanWrite.
        var more = true
        while more && connection.state == .open {
            while connection.pendingOutput < Connection.highWater {
                var data: UnsafePointer<UInt8>?
                let count = nghttp2_session_mem_send(session, &data)
                if count < 0 {
                    connection.fail(TransportError(.protocolError, "HTTP/2 error: \(String(cString: nghttp2_strerror(Int32(count))))."))
                    return
                }
                if count == 0 { more = false; break }
                connection.enqueue(UnsafeRawBufferPointer(start: data, count: count))
            }
            connection.flush()
            if connection.pendingOutput > 0 { break }
        }
        if connection.state == .open, nghttp2_session_want_read(session) == 0, nghttp2_session_want_write(session) == 0,
           connection.pendingOutput == 0 {
            // A server that closed at once could destroy its own GOAWAY: requests the client
            // sent meanwhile sit unread, and closing with unread input makes the kernel send
            // RST, which discards what the client has not read yet. So it says close_notify
            // and waits (bounded) for the client to close first.
            if isServer { connection.closeAfterPeer(timeout: 2) } else { connection.close(error: nil) }
        }
    }

    // MARK: callbacks (loop thread, inside nghttp2_session_mem_recv / mem_send)

    private func beginHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        if let serverStreams, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) {
            lastActivity = EventLoop.nowMillis()
            serverStreams.beginHeaders(frame.pointee.hd.stream_id, newRequest: frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST)
        }
        return 0
    }

    /// Client: a response header (the server's go to `HTTP2ServerStreams`).
    private func header(_ frame: UnsafePointer<nghttp2_frame>, _ name: String, _ value: String) -> Int32 {
        let id = frame.pointee.hd.stream_id
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
        if violation != nil { return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue }
        if let stream = clientStreams[id] {
            stream.headerBytes += name.utf8.count + value.utf8.count + 32  // RFC 9113 section 6.5.2
            if stream.headerBytes > Int(settings.maxHeaderListSize) { return refuseHeaderList(id) }
            if name == ":status" {
                stream.status = Int(value) ?? 0
            } else {
                stream.headers.append((name, value))
            }
        }
        return 0
    }

    /// A peer over `maxHeaderListSize` on stream `id`. Resetting only the stream would leave
    /// the peer free to try again on the next one, so the whole session ends: `didRead`
    /// terminates it (GOAWAY ENHANCE_YOUR_CALM) once nghttp2 returns, and `violation` is the
    /// reason the close reports. nghttp2 still decodes the rest of the block, to keep HPACK in
    /// step, but nothing more of it is stored.
    private func refuseHeaderList(_ id: Int32) -> Int32 {
        let limit = settings.maxHeaderListSize
        let peer = connection.host ?? connection.remoteAddress
        violation = TransportError(.protocolError, isServer
            ? "The client \(peer) sent more than \(limit) bytes of headers on stream \(id) (our SETTINGS_MAX_HEADER_LIST_SIZE); the connection was closed with GOAWAY ENHANCE_YOUR_CALM."
            : "The server \(peer) sent more than \(limit) bytes of response headers on stream \(id) (our SETTINGS_MAX_HEADER_LIST_SIZE; an APNs answer has a few hundred); the connection was closed.")
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
    }

    /// One sentence for an error `nghttp2_session_mem_recv` returned: the peer broke HTTP/2.
    private func receiveError(_ code: Int32) -> TransportError {
        let peer = "\(isServer ? "client" : "server") \(connection.host ?? connection.remoteAddress)"
        if code == NGHTTP2_ERR_TOO_MANY_CONTINUATIONS.rawValue {
            return TransportError(.protocolError, "The \(peer) sent more than \(Self.maxContinuations) CONTINUATION frames after one HEADERS frame (a header block without end); the connection was closed.")
        }
        return TransportError(.protocolError, "HTTP/2 error from the \(peer): \(String(cString: nghttp2_strerror(code))).")
    }

    private func dataChunk(_ id: Int32, _ data: UnsafeBufferPointer<UInt8>) {
        if let serverStreams {
            lastActivity = EventLoop.nowMillis()
            if let request = serverStreams.data(id, data) {
                resetAfterAnswer.insert(id)
                onRequest?(self, id, request)
            }
            return
        }
        guard let stream = clientStreams[id] else { return }
        guard stream.body.count + data.count <= settings.maxBodySize else {
            refuseResponseBody(id, stream)
            return
        }
        stream.body.append(contentsOf: data)
    }

    /// Client: the answer on stream `id` passed `maxBodySize`. The request fails with a
    /// sentence and the stream is cancelled, so the server stops sending; nothing more of the
    /// answer is kept.
    private func refuseResponseBody(_ id: Int32, _ stream: ClientStream) {
        clientStreams[id] = nil
        if let session { _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue) }
        let peer = connection.host ?? connection.remoteAddress
        stream.completion(.failure(TransportError(.protocolError, "The server \(peer) sent more than \(settings.maxBodySize) bytes of response body on stream \(id) (our limit for one answer); the request was cancelled.")))
    }

    private func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        let endStream = header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch UInt32(header.type) {
        case NGHTTP2_SETTINGS.rawValue where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            receivedSettings = true
            if let session, let onRemoteSettings {
                onRemoteSettings(Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)))
            }
            for waiter in readyWaiters {
                connection.loop.cancelTimer(waiter.timer)
                waiter.continuation.resume()
            }
            readyWaiters.removeAll()
        case NGHTTP2_HEADERS.rawValue:
            if let request = serverStreams?.headersEnded(header.stream_id, endStream: endStream) {
                onRequest?(self, header.stream_id, request)
            }
        case NGHTTP2_DATA.rawValue:
            if endStream, let request = serverStreams?.dataEnded(header.stream_id) {
                onRequest?(self, header.stream_id, request)
            }
        case NGHTTP2_GOAWAY.rawValue:
            let goawayFrame = frame.pointee.goaway
            var debug = ""
            if let data = goawayFrame.opaque_data, goawayFrame.opaque_data_len > 0 {
                debug = String(decoding: UnsafeBufferPointer(start: data, count: goawayFrame.opaque_data_len), as: UTF8.self)
            }
            goaway = (goawayFrame.error_code, debug, goawayFrame.last_stream_id)
            onGoAway?()
        case NGHTTP2_PING.rawValue where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
            if !pings.isEmpty { pings.removeFirst()(.success(())) }
        default:
            break
        }
        return 0
    }

    /// Client: the last moment a request can be given up unsent. A request whose caller
    /// cancelled it before its HEADERS frame was serialized is dropped here (nghttp2 then
    /// closes the stream), so "cancelled before it was written" is a promise: the server
    /// never sees a byte of it.
    private func beforeFrameSend(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
              let cancellation = clientStreams[frame.pointee.hd.stream_id]?.cancellation else { return 0 }
        return cancellation.markWritten() ? 0 : NGHTTP2_ERR_CANCEL.rawValue
    }

    private func streamClosed(_ id: Int32, _ errorCode: UInt32) {
        if isServer {
            serverStreams?.streamClosed(id)
            if !resetAfterAnswer.isEmpty { resetAfterAnswer.remove(id) }
            return
        }
        guard let stream = clientStreams.removeValue(forKey: id) else { return }
        if stream.cancellation?.isCancelled == true {
            stream.completion(.failure(Self.cancelledError))
            return
        }
        stream.completion(violation.map { .failure($0) } ?? Self.outcome(of: stream, id: id, closedWith: errorCode, goaway: goaway))
    }

    /// A closed client stream's result: its response, or why there is none (and whether the
    /// server can have processed it, which decides whether a resend may duplicate).
    private static func outcome(of stream: ClientStream, id: Int32, closedWith errorCode: UInt32,
                                goaway: (code: UInt32, debug: String, lastStreamID: Int32)?) -> Result<HTTP2Response, TransportError> {
        if errorCode == 0 && stream.status != 0 {
            return .success(HTTP2Response(status: stream.status, headers: stream.headers, body: stream.body))
        }
        let refused = errorCode == NGHTTP2_REFUSED_STREAM.rawValue
        if let goaway, refused || stream.status == 0 {
            let detail = goaway.debug.isEmpty ? "" : " (\(goaway.debug))"
            return .failure(refused || id > goaway.lastStreamID
                ? TransportError(.notProcessed, "The server sent GOAWAY \(errorName(goaway.code)) before answering\(detail); the request was not processed and may be retried.")
                : TransportError(.connectionClosed, "The server sent GOAWAY \(errorName(goaway.code)) while the request was in flight\(detail); it may have been processed."))
        }
        if refused {
            return .failure(TransportError(.notProcessed, "The server refused the request's stream (REFUSED_STREAM); it was not processed and may be retried."))
        }
        return .failure(TransportError(.streamReset(errorCode), "The server reset the request's stream with \(errorName(errorCode))."))
    }

    /// Whether stream `id` certainly never reached the server's processing: above GOAWAY's
    /// last-stream-id, or never opened (still queued in nghttp2 behind MAX_CONCURRENT_STREAMS).
    private func wasNotProcessed(_ id: Int32) -> Bool {
        if let goaway, id > goaway.lastStreamID { return true }
        guard let session else { return true }
        return nghttp2_session_find_stream(session, id) == nil
    }

    /// CONTINUATION frames accepted after one HEADERS frame. nghttp2's default since its fix
    /// for CVE-2024-28182 (Debian backported it to 1.52.0), set here so the bound does not
    /// depend on the library's patch level: without it a peer can keep one header block open
    /// forever and make us decode HPACK for nothing. 8 frames of 16 KB hold far more than
    /// `maxHeaderListSize`.
    static let maxContinuations = 8

    static func errorName(_ code: UInt32) -> String { String(cString: nghttp2_http2_strerror(code)) }

    // MARK: data providers

    private static let readCallback: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, user in
        guard let user, let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        return Unmanaged<HTTP2Session>.fromOpaque(user).takeUnretainedValue().readBody(streamID, buffer, length, flags)
    }

    private func readBody(_ id: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ length: Int, _ flags: UnsafeMutablePointer<UInt32>) -> Int {
        func copy(_ body: [UInt8], _ offset: Int) -> Int {
            let count = min(length, body.count - offset)
            if count > 0 { body.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + offset, count: count) } }
            if offset + count >= body.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
            return count
        }
        if let serverStreams {
            var end = false
            let count = serverStreams.readBody(id, into: UnsafeMutableBufferPointer(start: buffer, count: length), end: &end)
            if end {
                flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
                if !resetAfterAnswer.isEmpty { resetIfAnsweredEarly(id) }
            }
            return count
        }
        guard let stream = clientStreams[id] else { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue; return 0 }
        let count = copy(stream.requestBody, stream.offset)
        clientStreams[id]!.offset += count
        return count
    }

    // MARK: client API (loop thread)

    /// Submits `request`; `completion` gets the response, a reset, the connection's end, or a
    /// timeout, exactly once, on the loop thread (perhaps before `submit` returns). Callable
    /// from inside this session's callbacks: a sender submits the next request from the
    /// previous one's completion, and the bytes go out with the `produce()` after the read.
    func submit(_ request: HTTP2Request, timeout: Double?, cancellation: RequestCancellation? = nil, completion: @escaping ClientCompletion) {
        if cancellation?.isCancelled == true {
            completion(.failure(Self.cancelledError))
            return
        }
        if let goaway {
            completion(.failure(TransportError(.notProcessed, "The server sent GOAWAY \(Self.errorName(goaway.code))\(goaway.debug.isEmpty ? "" : " (\(goaway.debug))"); the request was not sent: open a new connection.")))
            return
        }
        guard let session, !closed else {
            let why = closeError?.message ?? "The connection to \(connection.host ?? connection.remoteAddress) is closed."
            completion(.failure(TransportError(.notProcessed, "\(why) The request was not sent.")))
            return
        }
        var headers = NameValueBuffer()
        swap(&headers, &nameValueScratch)
        defer { swap(&headers, &nameValueScratch) }
        headers.removeAll()
        // The caller's `neverIndexedHeaders` (perhaps :path, an id) are new on every request:
        // never indexed, so they do not push the reusable ones out of both peers' HPACK tables.
        headers.append(name: ":method", value: request.method)
        headers.append(name: ":scheme", value: request.scheme)
        headers.append(name: ":authority", value: request.authority ?? connection.host ?? "")
        headers.append(name: ":path", value: request.path, indexed: !settings.isNeverIndexed(":path"))
        for header in request.headers {
            headers.append(name: header.name, value: header.value, indexed: !settings.isNeverIndexed(header.name))
        }
        if !request.body.isEmpty, request.header("content-length") == nil {
            headers.append(name: "content-length", value: String(request.body.count))
        }
        var provider = nghttp2_data_provider()
        provider.read_callback = Self.readCallback
        let id = headers.withNameValues { nva, count in
            request.body.isEmpty ? nghttp2_submit_request(session, nil, nva, count, nil, nil)
                                 : nghttp2_submit_request(session, nil, nva, count, &provider, nil)
        }
        guard id > 0 else {
            completion(.failure(TransportError(.internalFailure, "nghttp2 refused the request: \(String(cString: nghttp2_strerror(id))).")))
            return
        }
        let stream = ClientStream(completion: completion, requestBody: request.body, timeout: timeout, cancellation: cancellation)
        clientStreams[id] = stream
        if let deadline = stream.deadline { armSweep(at: deadline) }
        if let cancellation {
            let loop = connection.loop
            let attached = cancellation.attach { [weak self] in
                guard let session = self else { return }
                loop.execute { session.abandon(id, Self.cancelledError) }
            }
            if !attached { abandon(id, Self.cancelledError) }
        }
        if !receiving { produce() }
    }

    static let cancelledError = TransportError(.cancelled, "The request was cancelled.")

    /// Makes sure the sweep runs by `deadline`.
    private func armSweep(at deadline: UInt64) {
        guard sweepTimer == nil || deadline < sweepDeadline else { return }
        connection.loop.cancelTimer(sweepTimer)
        sweepDeadline = deadline
        let now = EventLoop.nowMillis()
        let delay = deadline > now ? Double(deadline - now) / 1000 : 0
        sweepTimer = connection.loop.schedule(after: delay) { [weak self] in self?.sweepDeadlines() }
    }

    /// Times out every stream past its deadline, then re-arms for the earliest one left.
    private func sweepDeadlines() {
        sweepTimer = nil
        sweepDeadline = .max
        let now = EventLoop.nowMillis()
        var earliest: UInt64 = .max
        var expired: [Int32] = []
        for (id, stream) in clientStreams {
            guard let deadline = stream.deadline else { continue }
            if deadline <= now { expired.append(id) } else { earliest = min(earliest, deadline) }
        }
        for id in expired {
            guard let stream = clientStreams[id] else { continue }
            abandon(id, TransportError(.timeout, "\(connection.host ?? connection.remoteAddress) did not answer the request within \(Self.seconds(stream.timeout))."))
        }
        if earliest != .max { armSweep(at: earliest) }
    }

    /// Gives up a request that is still waiting (timed out, or cancelled by its caller): resets
    /// its stream with CANCEL so the server frees the slot, ends it with `error`, and drops
    /// whatever the server still sends on it. A stream that already ended is left alone.
    private func abandon(_ id: Int32, _ error: TransportError) {
        guard let stream = clientStreams.removeValue(forKey: id), session != nil else { return }
        resetStream(id, NGHTTP2_CANCEL.rawValue)
        stream.completion(.failure(error))
        produce()
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) second\(value == 1 ? "" : "s")" : "\(value) seconds"
    }

    func ping(_ continuation: CheckedContinuation<Void, Error>) {
        ping { continuation.resume(with: $0.mapError { $0 as Error }) }
    }

    /// Sends a PING; `completion` runs once on the loop thread, when it is acknowledged or
    /// the connection closes.
    func ping(_ completion: @escaping (Result<Void, TransportError>) -> Void) {
        guard let session, !closed else {
            completion(.failure(TransportError(.connectionClosed, "The connection is closed.")))
            return
        }
        // A PING nghttp2 refused (out of memory, session terminating) will never be answered:
        // fail it now instead of leaving the caller waiting until the connection closes.
        let rc = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
        guard rc == 0 else {
            completion(.failure(TransportError(.internalFailure, "Could not send an HTTP/2 PING: \(String(cString: nghttp2_strerror(rc))).")))
            return
        }
        pings.append(completion)
        produce()
    }

    /// Resumes once the peer's first SETTINGS frame arrived (the connection is really usable;
    /// with TLS 1.3 a rejected client certificate shows up here as an alert instead). After
    /// `timeout` seconds without one, the connection is closed with a timeout error.
    func waitForSettings(timeout: Double, _ continuation: CheckedContinuation<Void, Error>) {
        if receivedSettings { continuation.resume(); return }
        if closed {
            continuation.resume(throwing: closeError ?? TransportError(.connectionClosed, "The connection is closed."))
            return
        }
        let timer = connection.loop.schedule(after: timeout) { [weak self] in
            guard let self, !self.receivedSettings else { return }
            let peer = self.connection.host ?? self.connection.remoteAddress
            self.connection.fail(TransportError(.timeout, "\(peer) completed the TLS handshake but sent no HTTP/2 SETTINGS within \(Self.seconds(timeout))."))
        }
        readyWaiters.append((continuation, timer))
    }

    /// Sends GOAWAY(NO_ERROR) and closes once in-flight streams finish.
    func shutdown() {
        guard let session, !closed else { connection.close(error: nil); return }
        guard nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue) == 0 else { connection.close(error: nil); return }
        produce()
    }

    // MARK: server API (loop thread)

    /// Answers stream `id` with `response`.
    func respond(_ id: Int32, _ response: HTTP2Response) {
        // nghttp2 knows whether the stream is still open (a client may have reset it while a
        // delayed answer was on its way).
        guard let session, !closed, let serverStreams, nghttp2_session_find_stream(session, id) != nil else { return }
        serverStreams.setResponseBody(id, response.body)
        var headers = NameValueBuffer()
        swap(&headers, &nameValueScratch)
        defer { swap(&headers, &nameValueScratch) }
        headers.removeAll()
        headers.appendStatus(response.status)
        for header in response.headers {
            headers.append(name: header.name, value: header.value, indexed: !settings.isNeverIndexed(header.name))
        }
        var provider = nghttp2_data_provider()
        provider.read_callback = Self.readCallback
        let rc = headers.withNameValues { nva, count in
            response.body.isEmpty ? nghttp2_submit_response(session, id, nva, count, nil)
                                  : nghttp2_submit_response(session, id, nva, count, &provider)
        }
        lastActivity = EventLoop.nowMillis()
        if rc != 0 {
            resetStream(id, NGHTTP2_INTERNAL_ERROR.rawValue)
        } else if response.body.isEmpty, !resetAfterAnswer.isEmpty {
            resetIfAnsweredEarly(id)
        }
        if !receiving { produce() }
    }

    /// A stream answered before its request ended: RST_STREAM(NO_ERROR) after the answer
    /// (queued behind its HEADERS and last DATA), telling the client to stop sending.
    private func resetIfAnsweredEarly(_ id: Int32) {
        guard resetAfterAnswer.remove(id) != nil else { return }
        resetStream(id, NGHTTP2_NO_ERROR.rawValue)
    }

    /// Queues RST_STREAM; if nghttp2 cannot (out of memory), the stream cannot be ended
    /// cleanly and neither can the connection's state be trusted: it closes.
    private func resetStream(_ id: Int32, _ code: UInt32) {
        guard let session else { return }
        if nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, code) != 0 {
            connection.fail(TransportError(.internalFailure, "nghttp2 could not reset stream \(id); the connection was closed."))
        }
    }

    /// Server: called by the idle sweep. Past `timeout` seconds without a request frame or
    /// an answer, the client gets GOAWAY (NO_ERROR, `debug`), after which the session closes
    /// once no stream is open; a connection still idle one more `timeout` later (a stream
    /// left open and silent) is closed outright.
    func closeIfIdle(now: UInt64, timeout: Double, debug: String) {
        guard !closed, now >= lastActivity, Double(now - lastActivity) >= timeout * 1000 else { return }
        if idleGoAwaySent {
            connection.close(error: nil)
            return
        }
        idleGoAwaySent = true
        lastActivity = now
        goAway(code: NGHTTP2_NO_ERROR.rawValue, debug: debug)
    }

    /// Server: answers stream `id` (unless the action says not to), then applies the action.
    func respond(_ id: Int32, _ response: HTTP2Response, then action: ConnectionAction) {
        if let streams = response.announceMaxConcurrentStreams, let session, !closed {
            // Queued before the answer: a client that sees the answer already knows the new limit.
            var entry = nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: streams)
            _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entry, 1)
        }
        switch action {
        case .keepOpen:
            respond(id, response)
        case .goAway(let code, let debug):
            respond(id, response)
            goAway(code: code, debug: debug)
        case .close:
            respond(id, response)
            produce()
            connection.close(error: nil)
        case .dropWithoutResponse:
            connection.close(error: nil)
        }
    }

    /// Server: GOAWAY with `code` and a debug body (the caller's wording, e.g. a JSON reason).
    func goAway(code: UInt32, debug: String) {
        guard let session, !closed else { return }
        let bytes = Array(debug.utf8)
        guard nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session), code, bytes, bytes.count) == 0 else {
            // Cannot say goodbye properly: close rather than keep a connection we meant to end.
            connection.close(error: nil)
            return
        }
        produce()
    }
}
