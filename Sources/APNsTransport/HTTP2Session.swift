// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import CNGHTTP2
import Foundation

/// One nghttp2 session on top of one `Connection`: the core both roles share.
///
/// Owns the `nghttp2_session*` (the only Swift object that frees it, in deinit). nghttp2 does
/// the protocol work — settings, HPACK, flow control and WINDOW_UPDATEs,
/// MAX_CONCURRENT_STREAMS (requests beyond the peer's limit wait in nghttp2's queue), GOAWAY,
/// RST_STREAM, PING acks — and this class moves bytes between it and the TLS connection,
/// keeps what every HTTP/2 endpoint keeps (PINGs, the peer's GOAWAY, a broken limit) and hands
/// streams to its `role`: `HTTP2ClientRole` turns them into requests and responses for a
/// client, `HTTP2ServerRole` for a server. The decisions that need no nghttp2 (deadlines,
/// health check, GOAWAY outcomes, idle timeout) are `state`'s, a value-type state machine.
///
/// Not `Sendable`: confined to its loop's thread, like its connection; it is made there and
/// every method others call checks it (`EventLoop.preconditionInLoop`, release builds too:
/// nghttp2 is not thread-safe). Owners on other threads hold it in a `LoopBound`.
final class HTTP2Session: ConnectionDelegate {
    let connection: Connection
    let settings: HTTP2Settings
    /// The client or server half: what streams mean. Called from nghttp2's callbacks with
    /// this session, so it needs no reference back.
    let role: any HTTP2SessionRole
    /// `@exclusivity(unchecked)`, as `receiving` and `state` are: read on every `produce` and
    /// every read (the runtime's check, some 80 instructions each), never accessed across a
    /// call (nghttp2 gets a copy of the pointer), and loop thread only.
    @exclusivity(unchecked) private var session: OpaquePointer?
    /// What `session` allocates from (`HTTP2Settings.pooledSessionMemory`); a stored property,
    /// so it outlives the `nghttp2_session_del` in deinit.
    private var memoryPool: SessionMemoryPool?
    /// Deadlines, PINGs, health check, GOAWAY, idle timeout: see `HTTP2ConnectionStateMachine`.
    /// `@exclusivity(unchecked)`: the roles stamp it for every frame (the runtime's check, some
    /// 80 instructions, was counted three times per request in the mock), and no two accesses
    /// can overlap: the state machine is a plain value whose methods call nothing outside it,
    /// and it is touched on the loop thread only.
    @exclusivity(unchecked) var state = HTTP2ConnectionStateMachine(now: EventLoop.nowMillis())

    /// Waiting for PING acknowledgements, oldest first (`state.pingsInFlight` of them).
    private var pings: [(Result<Void, TransportError>) -> Void] = []
    /// The health check's pending timer, cancelled when the connection closes.
    var healthTimer: UInt64?
    /// Refilled for every request (client) or response (server), swapped into a local meanwhile.
    private var nameValueScratch = NameValueBuffer()
    /// True inside `nghttp2_session_mem_recv`: requests and responses submitted by callbacks
    /// then are sent together by the `produce()` that follows it, one TLS write for a whole
    /// read's worth of them instead of one each (and nghttp2 is not re-entered from its
    /// callbacks).
    @exclusivity(unchecked) private(set) var receiving = false

    /// Called once when the TLS handshake finished (or failed before that).
    var onHandshake: ((Result<TLSHandshakeInfo, TransportError>) -> Void)?
    /// Called once when the connection is gone.
    var onClose: ((TransportError?) -> Void)?
    private(set) var closeError: TransportError?
    var closed: Bool { state.isClosed }
    /// Set when the peer broke one of our limits (a header list over `maxHeaderListSize`): the
    /// session is being terminated, and this is why, for the server's log and the client's
    /// callers, instead of a bare "connection closed".
    private(set) var violation: TransportError? {
        didSet { violated = violation != nil }
    }
    /// `violation != nil`, read where it is asked per header or per stream: testing the
    /// optional error itself copied it (its message String) each time, some 90 instructions
    /// per header in the mock's profile.
    private(set) var violated = false
    /// The code of the first GOAWAY we queued, if any (`closeReason`).
    private(set) var goAwaySent: UInt32?
    /// Set by the owner or the role when it ends the connection for a reason of its own
    /// ("idle-timeout", "dropped", "server-stopped"); else `closeReason` works it out.
    var closeReason: String?
    /// The TLS handshake completed (a close before it is a TLS failure).
    private var handshakeDone = false

    init(connection: Connection, settings: HTTP2Settings, role: any HTTP2SessionRole) {
        connection.loop.preconditionInLoop()
        self.connection = connection
        self.settings = settings
        self.role = role
        connection.delegate = self
    }

    deinit {
        if let session { nghttp2_session_del(session) }
    }

    /// Whether nghttp2 runs (after the handshake; a detached session at once).
    var isStarted: Bool { session != nil }

    /// The peer's name in sentences: the host we connected to, or its address.
    var peer: String { connection.host ?? connection.remoteAddress }

    // MARK: ConnectionDelegate

    func connectionDidHandshake(_ connection: Connection) {
        connection.loop.preconditionInLoop()
        guard let info = connection.handshakeInfo else { return }
        handshakeDone = true
        if let refusal = role.handshakeCompleted(info, in: self) {
            connection.fail(refusal)
            return
        }
        do {
            try startSession(peerPresentedCertificate: !info.peerChain.isEmpty)
        } catch {
            connection.fail(error as? TransportError ?? TransportError(.internalFailure, "\(error)"))
            return
        }
        let callback = onHandshake
        onHandshake = nil
        callback?(.success(info))
        produce()
    }

    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        connection.loop.preconditionInLoop()
        guard let session, let base = bytes.baseAddress else { return }
        state.inputReceived(at: EventLoop.nowMillis())
        let slice = role.receiveSlice
        var offset = 0
        while offset < bytes.count, !closed {
            let count = min(slice, bytes.count - offset)
            receiving = true
            let consumed = nghttp2_session_mem_recv(session, base.assumingMemoryBound(to: UInt8.self) + offset, count)
            receiving = false
            role.receiveProcessed(in: self)
            if consumed < 0 {
                connection.fail(violation ?? receiveError(Int32(consumed)))
                return
            }
            if let violation {
                if goAwaySent == nil { goAwaySent = NGHTTP2_ENHANCE_YOUR_CALM.rawValue }
                if nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM.rawValue) != 0 {
                    connection.fail(violation)
                    return
                }
                produce()
                return
            }
            offset += count
            produce()
        }
    }

    func connectionCanWrite(_ connection: Connection) { produce() }  // checked in produce

    func connection(_ connection: Connection, didCloseWith error: TransportError?) {
        connection.loop.preconditionInLoop()
        closeReason = closeReason ?? reasonForClose(error)
        state.connectionClosed()
        var failure = error ?? violation ?? TransportError(.connectionClosed, "The connection to \(peer) was closed.")
        if error == nil, violation == nil, let goAway = state.goAway {
            failure = TransportError(.connectionClosed, "The server closed the connection with GOAWAY \(Self.describe(goAway)).")
        }
        closeError = error
        if let callback = onHandshake {
            onHandshake = nil
            callback(.failure(failure))
        }
        role.sessionClosed(failure, in: self)
        connection.loop.cancelTimer(healthTimer)
        healthTimer = nil
        let waitingPings = pings
        pings.removeAll()
        for ping in waitingPings { ping(.failure(failure)) }
        let close = onClose
        onClose = nil
        close?(error ?? violation ?? (state.goAway != nil ? failure : nil))
    }

    /// Why the connection ended, as a server's log and stats count it: the owner's or role's
    /// own reason, else the GOAWAY we sent or received, a TLS failure, an HTTP/2 error, the
    /// peer's reset (a read or write error) or its plain close.
    private func reasonForClose(_ error: TransportError?) -> String {
        if let goAwaySent { return "goaway-sent:\(Self.errorName(goAwaySent))" }
        if let goAway = state.goAway { return "goaway-received:\(Self.errorName(goAway.code))" }
        if !handshakeDone { return "tls-failure" }
        if let error { return error.kind == .protocolError ? "protocol-error" : "peer-reset" }
        return "peer-closed"
    }

    /// The peer broke one of our limits outside a header block (a rapid-reset flood): `didRead`
    /// ends the session with GOAWAY ENHANCE_YOUR_CALM once nghttp2 returns, `error` the reason.
    func refuse(_ error: TransportError) {
        connection.loop.preconditionInLoop()
        if violation == nil { violation = error }
    }

    // MARK: session

    /// Starts nghttp2 without a handshake, for a detached connection (`HTTP2SessionFuzzing`).
    func startDetached() throws {
        connection.loop.preconditionInLoop()
        try startSession(peerPresentedCertificate: true)
        produce()
    }

    /// Runs `body` with this session, from the user pointer nghttp2 hands every callback,
    /// without retaining it: the session owns the nghttp2 session that calls back, so it is
    /// alive for the whole callback. (A session is weakly referenced, by timers and request
    /// handles, which moves its reference count to a side table: each retain and release
    /// took the runtime's slow path, several per response.)
    static func with<Result>(_ user: UnsafeMutableRawPointer, _ body: (HTTP2Session) throws -> Result) rethrows -> Result {
        try Unmanaged<HTTP2Session>.fromOpaque(user)._withUnsafeGuaranteedRef(body)
    }

    /// `peerPresentedCertificate`: false for a server's client that presented no certificate
    /// (it authenticates in its requests instead); the role's SETTINGS may depend on it.
    private func startSession(peerPresentedCertificate: Bool) throws {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw TransportError(.internalFailure, "nghttp2 could not allocate its callbacks.")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            HTTP2Session.with(user) { session in session.role.beginHeaders(frame, in: session) }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value, let user else { return 0 }
            return HTTP2Session.with(user) { session in
                // Once a limit is broken nothing more is stored (see `refuseHeaderList`).
                if session.violated { return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue }
                return session.role.header(frame, name: UnsafeBufferPointer(start: name, count: nameLength),
                                           value: UnsafeBufferPointer(start: value, count: valueLength), in: session)
            }
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            guard let user, let data else { return 0 }
            HTTP2Session.with(user) { session in session.role.dataChunk(streamID, UnsafeBufferPointer(start: data, count: length), in: session) }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            HTTP2Session.with(user) { session in session.frameReceived(frame) }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, user in
            guard let user else { return 0 }
            HTTP2Session.with(user) { session in session.role.streamClosed(streamID, errorCode: errorCode, in: session) }
            return 0
        }
        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else {
            throw TransportError(.internalFailure, "nghttp2 could not allocate its options.")
        }
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_max_continuations(option, Self.maxContinuations)
        var created: OpaquePointer?
        let user = Unmanaged.passUnretained(self).toOpaque()
        let rc: Int32
        if settings.pooledSessionMemory, let pool = SessionMemoryPool() {
            memoryPool = pool
            var allocator = pool.allocator
            rc = role.newSession(&created, callbacks: callbacks, option: option, memory: &allocator, user: user)
        } else {
            rc = role.newSession(&created, callbacks: callbacks, option: option, memory: nil, user: user)
        }
        guard rc == 0, let created else { throw TransportError(.internalFailure, "nghttp2 could not create a session.") }
        session = created
        let entries = role.localSettings(settings, peerPresentedCertificate: peerPresentedCertificate)
        guard nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), entries, entries.count) == 0 else {
            throw TransportError(.internalFailure, "nghttp2 refused our SETTINGS.")
        }
        guard nghttp2_session_set_local_window_size(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, settings.connectionWindowSize) == 0 else {
            throw TransportError(.internalFailure, "nghttp2 refused the connection window size \(settings.connectionWindowSize).")
        }
    }

    /// Moves nghttp2's pending frames into the connection (until its buffer is full) and
    /// lets the role close when neither side has anything more to say.
    func produce() {
        connection.loop.preconditionInLoop()
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
            role.bothSidesDone(connection)
        }
    }

    /// Sends unless inside a read (whose `produce()` follows).
    func produceUnlessReceiving() {
        if !receiving { produce() }
    }

    // MARK: frames

    private func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) {
        let header = frame.pointee.hd
        switch UInt32(header.type) {
        case NGHTTP2_SETTINGS.rawValue where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            role.remoteSettingsReceived(in: self)
        case NGHTTP2_GOAWAY.rawValue:
            let goawayFrame = frame.pointee.goaway
            var debug = ""
            if let data = goawayFrame.opaque_data, goawayFrame.opaque_data_len > 0 {
                debug = String(decoding: UnsafeBufferPointer(start: data, count: goawayFrame.opaque_data_len), as: UTF8.self)
            }
            state.goAwayReceived(.init(code: goawayFrame.error_code, debug: debug, lastStreamID: goawayFrame.last_stream_id))
            role.goAwayReceived(in: self)
        case NGHTTP2_PING.rawValue where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
            if state.pingAcknowledged() { pings.removeFirst()(.success(())) }
        default:
            role.frameReceived(frame, in: self)
        }
    }

    /// A peer over `maxHeaderListSize` on stream `id`. Resetting only the stream would leave
    /// the peer free to try again on the next one, so the whole session ends: `didRead`
    /// terminates it (GOAWAY ENHANCE_YOUR_CALM) once nghttp2 returns, and `violation` is the
    /// reason the close reports. nghttp2 still decodes the rest of the block, to keep HPACK in
    /// step, but nothing more of it is stored.
    func refuseHeaderList(_ id: Int32) -> Int32 {
        violation = role.headerListViolation(peer: peer, limit: settings.maxHeaderListSize, stream: id)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
    }

    /// One sentence for an error `nghttp2_session_mem_recv` returned: the peer broke HTTP/2.
    private func receiveError(_ code: Int32) -> TransportError {
        let who = "\(role.peerKind) \(peer)"
        if code == NGHTTP2_ERR_TOO_MANY_CONTINUATIONS.rawValue {
            return TransportError(.protocolError, "The \(who) sent more than \(Self.maxContinuations) CONTINUATION frames after one HEADERS frame (a header block without end); the connection was closed.")
        }
        return TransportError(.protocolError, "HTTP/2 error from the \(who): \(String(cString: nghttp2_strerror(code))).")
    }

    /// CONTINUATION frames accepted after one HEADERS frame. nghttp2's default since its fix
    /// for CVE-2024-28182 (Debian backported it to 1.52.0), set here so the bound does not
    /// depend on the library's patch level: without it a peer can keep one header block open
    /// forever and make us decode HPACK for nothing. 8 frames of 16 KB hold far more than
    /// `maxHeaderListSize`.
    static let maxContinuations = 8

    static func errorName(_ code: UInt32) -> String { String(cString: nghttp2_http2_strerror(code)) }

    /// "NO_ERROR (debug)": a GOAWAY's code and, if any, its debug data, for sentences.
    static func describe(_ goAway: HTTP2ConnectionStateMachine.GoAway) -> String {
        "\(errorName(goAway.code))\(goAway.debug.isEmpty ? "" : " (\(goAway.debug))")"
    }

    static func seconds(_ value: Double) -> String { TimerSeconds.text(value) }

    // MARK: what the roles ask of nghttp2 (loop thread)

    /// The peer's SETTINGS_MAX_CONCURRENT_STREAMS.
    var remoteMaxConcurrentStreams: Int {
        guard let session else { return 0 }
        return Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    /// Whether nghttp2 still has stream `id` open (a request still queued behind
    /// MAX_CONCURRENT_STREAMS has none yet; an answered or reset one none any more).
    func hasStream(_ id: Int32) -> Bool {
        connection.loop.preconditionInLoop()
        guard let session else { return false }
        return nghttp2_session_find_stream(session, id) != nil
    }

    /// Stream `id` is open and our answer has not ended it yet (nothing, or not all of it,
    /// sent): what a reset makes us throw away. Closed streams are not kept, so an answered
    /// stream whose request had ended is simply gone.
    func isOpenAndUnanswered(_ id: Int32) -> Bool {
        connection.loop.preconditionInLoop()
        guard let session, nghttp2_session_find_stream(session, id) != nil else { return false }
        return nghttp2_session_get_stream_local_close(session, id) == 0
    }

    /// The peer has not ended stream `id` yet: its request is still arriving.
    func isStillReceiving(_ id: Int32) -> Bool {
        connection.loop.preconditionInLoop()
        guard let session else { return false }
        return nghttp2_session_get_stream_remote_close(session, id) == 0
    }

    /// The session's reused header buffer, emptied, for one request or response.
    func withHeaderScratch<Result>(_ body: (inout NameValueBuffer) -> Result) -> Result {
        connection.loop.preconditionInLoop()
        var headers = NameValueBuffer()
        swap(&headers, &nameValueScratch)
        defer { swap(&headers, &nameValueScratch) }
        headers.removeAll()
        return body(&headers)
    }

    private static let readCallback: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, user in
        guard let user, let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        var end = false
        let count = HTTP2Session.with(user) { session in
            session.role.readBody(streamID, into: UnsafeMutableBufferPointer(start: buffer, count: length), end: &end, in: session)
        }
        if end { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }

    /// Queues a request (HEADERS, and DATA from `role.readBody` when `hasBody`); its stream id,
    /// or nghttp2's negative error code.
    func submitRequest(_ headers: inout NameValueBuffer, hasBody: Bool) -> Int32 {
        connection.loop.preconditionInLoop()
        guard let session else { return NGHTTP2_ERR_INVALID_STATE.rawValue }
        var provider = nghttp2_data_provider()
        provider.read_callback = Self.readCallback
        return headers.withNameValues { nva, count in
            hasBody ? nghttp2_submit_request(session, nil, nva, count, &provider, nil)
                    : nghttp2_submit_request(session, nil, nva, count, nil, nil)
        }
    }

    /// Queues the answer on stream `id` (HEADERS, and DATA from `role.readBody` when
    /// `hasBody`); 0 or nghttp2's negative error code.
    func submitResponse(_ id: Int32, _ headers: inout NameValueBuffer, hasBody: Bool) -> Int32 {
        connection.loop.preconditionInLoop()
        guard let session else { return NGHTTP2_ERR_INVALID_STATE.rawValue }
        var provider = nghttp2_data_provider()
        provider.read_callback = Self.readCallback
        return headers.withNameValues { nva, count in
            hasBody ? nghttp2_submit_response(session, id, nva, count, &provider)
                    : nghttp2_submit_response(session, id, nva, count, nil)
        }
    }

    /// Queues a SETTINGS frame raising or lowering our MAX_CONCURRENT_STREAMS.
    func announceMaxConcurrentStreams(_ streams: UInt32) {
        connection.loop.preconditionInLoop()
        guard let session, !closed else { return }
        var entry = nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: streams)
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entry, 1)
    }

    /// Queues RST_STREAM; if nghttp2 cannot (out of memory), the stream cannot be ended
    /// cleanly and neither can the connection's state be trusted: it closes.
    func resetStream(_ id: Int32, _ code: UInt32) {
        connection.loop.preconditionInLoop()
        guard let session else { return }
        if nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, code) != 0 {
            connection.fail(TransportError(.internalFailure, "nghttp2 could not reset stream \(id); the connection was closed."))
        }
    }

    /// Queues RST_STREAM and ignores a failure: the connection is being given up on anyway.
    func resetStreamQuietly(_ id: Int32, _ code: UInt32) {
        connection.loop.preconditionInLoop()
        if let session { _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, code) }
    }

    // MARK: API for owners (loop thread)

    func ping(_ continuation: CheckedContinuation<Void, Error>) {
        ping { continuation.resume(with: $0.mapError { $0 as Error }) }
    }

    /// Sends a PING; `completion` runs once on the loop thread, when it is acknowledged or
    /// the connection closes.
    func ping(_ completion: @escaping (Result<Void, TransportError>) -> Void) {
        connection.loop.preconditionInLoop()
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
        state.pingSent()
        pings.append(completion)
        produce()
    }

    /// Sends GOAWAY(NO_ERROR) and closes once in-flight streams finish.
    func shutdown() {
        connection.loop.preconditionInLoop()
        closeReason = closeReason ?? "server-stopped"
        guard let session, !closed else { connection.close(error: nil); return }
        guard nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue) == 0 else { connection.close(error: nil); return }
        produce()
    }

    /// GOAWAY with `code` and a debug body (the caller's wording, e.g. a JSON reason); the
    /// last stream id is the last one the peer opened.
    func goAway(code: UInt32, debug: String) {
        connection.loop.preconditionInLoop()
        guard let session, !closed else { return }
        let bytes = Array(debug.utf8)
        if goAwaySent == nil { goAwaySent = code }
        guard nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session), code, bytes, bytes.count) == 0 else {
            // Cannot say goodbye properly: close rather than keep a connection we meant to end.
            connection.close(error: nil)
            return
        }
        produce()
    }

    /// Called by a server's sweep: past `quiet` seconds without a request frame or an answer,
    /// the connection's buffers go back (`Connection.releaseIdleBuffers`).
    func releaseBuffersIfQuiet(now: UInt64, quiet: Double) {
        connection.loop.preconditionInLoop()
        guard now >= state.lastActivity, Double(now - state.lastActivity) >= quiet * 1000 else { return }
        connection.releaseIdleBuffers()
    }

    /// Called by a server's idle sweep. Past `timeout` seconds without a request frame or an
    /// answer, the peer gets GOAWAY (NO_ERROR, `debug`), after which the session closes once
    /// no stream is open; a connection still idle one more `timeout` later (a stream left open
    /// and silent) is closed outright.
    func closeIfIdle(now: UInt64, timeout: Double, debug: String) {
        connection.loop.preconditionInLoop()
        switch state.idleCheck(now: now, timeout: timeout) {
        case .nothing: break
        case .sendGoAway:
            closeReason = closeReason ?? "idle-timeout"
            goAway(code: NGHTTP2_NO_ERROR.rawValue, debug: debug)
        case .close: connection.close(error: nil)
        }
    }
}
