// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import CNGHTTP2
import Foundation
import Synchronized

/// The client half of an `HTTP2Session`: requests out, responses in, each request's deadline,
/// cancellation and outcome (answered, reset, refused, cut by GOAWAY or by the connection's
/// end, and whether a resend may duplicate it).
///
/// Not `Sendable`: loop thread only, owned by its session (`HTTP2Client` holds both in a
/// `LoopBound`).
final class HTTP2ClientRole: HTTP2SessionRole {
    /// Each open request's record is its `RequestCancellation` (one object per request): a
    /// class, updated in place from nghttp2's callbacks (a header, a chunk at a time).
    private typealias Stream = RequestCancellation
    /// The open requests by stream id: ids are handed out in order, so a lookup needs no
    /// hashing (`SequentialKeyTable`).
    @exclusivity(unchecked) private var streams = SequentialKeyTable<Stream>(step: 2)
    /// The last request's pseudo-header block and what it was made of (`pseudoHeaders`).
    private var lastPseudoHeaders: (method: String, scheme: String, authority: String, block: HTTP2HeaderBlock)?

    /// Stream `id`, if it is still in the book.
    private func stream(_ id: Int32) -> Stream? { streams[Int(id)] }
    /// The session's one deadline sweep timer (when is `session.state.sweepAt`).
    private var sweepTimer: UInt64?
    private var streamResetter: StreamResetter?
    private var readyWaiters: [(continuation: CheckedContinuation<Void, Error>, timer: UInt64)] = []
    private(set) var receivedSettings = false

    /// Told when the peer's SETTINGS arrive (its MAX_CONCURRENT_STREAMS) and when a GOAWAY
    /// arrives, so `HTTP2Client` can answer `isOpen` without hopping onto the loop.
    var onRemoteSettings: ((Int) -> Void)?
    var onGoAway: (() -> Void)?

    init() {}

    static let cancelledError = TransportError(.cancelled, "The request was cancelled.")

    // MARK: HTTP2SessionRole

    var peerKind: String { "server" }

    /// Received bytes go to nghttp2 in slices of this many, with a send after each: a 16 KB
    /// TLS record holds about a hundred responses, and a sender that refills streams from
    /// their completions would otherwise hold the new requests back until all hundred are
    /// handled, leaving the server idle meanwhile.
    var receiveSlice: Int { 2048 }

    func handshakeCompleted(_ info: TLSHandshakeInfo, in session: HTTP2Session) -> TransportError? {
        let connection = session.connection
        guard connection.context.configuration.verification != .reportOnly, info.alpn != "h2" else { return nil }
        return TransportError(.protocolError, "The server \(session.peer) does not speak HTTP/2: it did not agree to ALPN h2.")
    }

    func newSession(_ created: inout OpaquePointer?, callbacks: OpaquePointer, option: OpaquePointer, memory: UnsafeMutablePointer<nghttp2_mem>?,
                    user: UnsafeMutableRawPointer) -> Int32 {
        nghttp2_session_callbacks_set_before_frame_send_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            return HTTP2Session.with(user) { session in session.role.beforeFrameSend(frame, in: session) }
        }
        return nghttp2_session_client_new3(&created, callbacks, user, option, memory)
    }

    func localSettings(_ settings: HTTP2Settings, peerPresentedCertificate: Bool) -> [nghttp2_settings_entry] {
        [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: settings.maxConcurrentStreams),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: settings.initialWindowSize),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: settings.maxHeaderListSize),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
        ]
    }

    /// The session is over (GOAWAY sent, nothing left to write): the socket closes once the
    /// server closed its side, or after 2 seconds, not at once. Answers to requests reset a
    /// moment ago may still be arriving, and closing with unread input makes the kernel send
    /// RST, which can destroy bytes the server has received and not read yet: the last
    /// requests, already reported written, would never reach it (a batch cancelled on a
    /// loaded machine lost 56 of 199 that way; docs/benchmarks.md, issue 33). As the server does.
    func bothSidesDone(_ connection: Connection) { connection.closeAfterPeer(timeout: 2) }

    func headerListViolation(peer: String, limit: UInt32, stream id: Int32) -> TransportError {
        TransportError(.protocolError, "The server \(peer) sent more than \(limit) bytes of response headers on stream \(id) (our SETTINGS_MAX_HEADER_LIST_SIZE; ordinary answers carry a few hundred bytes); the connection was closed.")
    }

    func beginHeaders(_ frame: UnsafePointer<nghttp2_frame>, in session: HTTP2Session) {}

    /// A response header.
    func header(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>,
                in session: HTTP2Session) -> Int32 {
        let id = frame.pointee.hd.stream_id
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue), let stream = stream(id) else { return 0 }
        stream.headerBytes += name.count + value.count + 32  // RFC 9113 section 6.5.2
        if stream.headerBytes > Int(session.settings.maxHeaderListSize) { return session.refuseHeaderList(id) }
        if name.count == 7, Self.statusName.withUnsafeBufferPointer({ name.hasBytes(of: $0) }) {
            stream.status = Self.status(value)
        } else if session.settings.keepsResponseHeader(name) {
            stream.headers.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        return 0
    }

    /// The one response pseudo-header, as bytes: compared with memcmp, where a generic
    /// comparison with a String's UTF-8 cost about 60 instructions per header of every answer.
    private static let statusName = Array(":status".utf8)

    /// A `:status` value's three digits, read without a String (0 when it is not a number).
    private static func status(_ value: UnsafeBufferPointer<UInt8>) -> Int {
        guard (1...3).contains(value.count) else { return 0 }
        var status = 0
        for byte in value {
            guard byte &- UInt8(ascii: "0") < 10 else { return 0 }
            status = status * 10 + Int(byte &- UInt8(ascii: "0"))
        }
        return status
    }

    func dataChunk(_ id: Int32, _ data: UnsafeBufferPointer<UInt8>, in session: HTTP2Session) {
        guard let stream = stream(id) else { return }
        guard stream.body.count + data.count <= session.settings.maxBodySize else {
            refuseResponseBody(id, stream, in: session)
            return
        }
        stream.body.append(contentsOf: data)
    }

    /// The answer on stream `id` passed `maxBodySize`. The request fails with a sentence and
    /// the stream is cancelled, so the server stops sending; nothing more of the answer is kept.
    private func refuseResponseBody(_ id: Int32, _ stream: Stream, in session: HTTP2Session) {
        remove(id, in: session)
        session.resetStreamQuietly(id, NGHTTP2_CANCEL.rawValue)
        stream.tell(.failure(TransportError(.protocolError, "The server \(session.peer) sent more than \(session.settings.maxBodySize) bytes of response body on stream \(id) (our limit for one answer); the request was cancelled.")))
    }

    func frameReceived(_ frame: UnsafePointer<nghttp2_frame>, in session: HTTP2Session) {}

    /// A request counts as written when the frame that ends it (END_STREAM) is serialized: its
    /// HEADERS frame when it has no body, else its body's last DATA frame (`readBody`). A
    /// server acts on a request only once it has all of it, so one reset between its HEADERS
    /// and its last DATA frame (nghttp2 sends queued HEADERS before DATA, and flow control or a
    /// full socket can hold the DATA back) was not processed and is "not written": a resend is
    /// safe, and calling it "written" would have the caller give up a request the server never had.
    /// A request cancelled before its HEADERS frame is dropped here, so the server never sees
    /// any of it.
    func beforeFrameSend(_ frame: UnsafePointer<nghttp2_frame>, in session: HTTP2Session) -> Int32 {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue), let stream = stream(frame.pointee.hd.stream_id) else { return 0 }
        if frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 {
            return stream.markWritten() ? 0 : NGHTTP2_ERR_CANCEL.rawValue
        }
        return stream.isCancelled ? NGHTTP2_ERR_CANCEL.rawValue : 0
    }

    func streamClosed(_ id: Int32, errorCode: UInt32, in session: HTTP2Session) {
        guard let stream = remove(id, in: session) else { return }
        if stream.isCancelled {
            stream.tell(.failure(Self.cancelledError))
            return
        }
        if session.violated, let violation = session.violation {
            stream.tell(.failure(violation))
            return
        }
        stream.tell(Self.outcome(of: stream, session.state.streamEnd(id, errorCode: errorCode, answered: stream.status != 0)))
    }

    /// A closed stream's result: its response, or why there is none (and whether the server
    /// can have processed it, which decides whether a resend may duplicate).
    private static func outcome(of stream: Stream, _ end: HTTP2ConnectionStateMachine.StreamEnd) -> Result<HTTP2Response, TransportError> {
        switch end {
        case .answered:
            return .success(HTTP2Response(status: stream.status, headers: stream.headers, body: stream.body))
        case .notProcessedAtGoAway(let goAway):
            let detail = goAway.debug.isEmpty ? "" : " (\(goAway.debug))"
            return .failure(TransportError(.notProcessed, "The server sent GOAWAY \(HTTP2Session.errorName(goAway.code)) before answering\(detail); the request was not processed and may be retried."))
        case .inFlightAtGoAway(let goAway):
            let detail = goAway.debug.isEmpty ? "" : " (\(goAway.debug))"
            return .failure(TransportError(.connectionClosed, "The server sent GOAWAY \(HTTP2Session.errorName(goAway.code)) while the request was in flight\(detail); it may have been processed."))
        case .refused:
            return .failure(TransportError(.notProcessed, "The server refused the request's stream (REFUSED_STREAM); it was not processed and may be retried."))
        case .reset(let code):
            return .failure(TransportError(.streamReset(code), "The server reset the request's stream with \(HTTP2Session.errorName(code))."))
        }
    }

    func readBody(_ id: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, end: inout Bool, in session: HTTP2Session) -> Int {
        guard let stream = stream(id) else { end = true; return 0 }
        let count = min(buffer.count, stream.requestBody.count - stream.offset)
        // The body's last part: the request is written now, unless the caller gave it up
        // first (`beforeFrameSend`). Then its reset (RST_STREAM CANCEL, from `cancel()`) is on
        // its way to this loop, and the body's end is held back until it closes the stream.
        if stream.offset + count >= stream.requestBody.count, !stream.markWritten() {
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        }
        if count > 0 {
            stream.requestBody.withUnsafeBufferPointer { buffer.baseAddress!.update(from: $0.baseAddress! + stream.offset, count: count) }
        }
        stream.offset += count
        end = stream.offset >= stream.requestBody.count
        return count
    }

    func remoteSettingsReceived(in session: HTTP2Session) {
        receivedSettings = true
        onRemoteSettings?(session.remoteMaxConcurrentStreams)
        for waiter in readyWaiters {
            session.connection.loop.cancelTimer(waiter.timer)
            waiter.continuation.resume()
        }
        readyWaiters.removeAll()
    }

    func goAwayReceived(in session: HTTP2Session) { onGoAway?() }

    func receiveProcessed(in session: HTTP2Session) {}

    func sessionClosed(_ failure: TransportError, in session: HTTP2Session) {
        let open = streams.entries
        streams.removeAll()
        session.connection.loop.cancelTimer(sweepTimer)
        sweepTimer = nil
        for (key, stream) in open {
            // Keys are stream ids, put in as `Int32`.
            let id = Int32(truncatingIfNeeded: key)
            let notProcessed = session.state.notProcessedAtLoss(id, opened: session.hasStream(id))
            stream.tell(.failure(notProcessed ? TransportError(.notProcessed, "\(failure.message) The request was not processed and may be resent.") : failure))
        }
        for waiter in readyWaiters {
            session.connection.loop.cancelTimer(waiter.timer)
            waiter.continuation.resume(throwing: failure)
        }
        readyWaiters.removeAll()
    }

    // MARK: API for the owner (loop thread)

    /// Submits `request`; `receiver` gets the response, a reset, the connection's end, or a
    /// timeout, exactly once, on the loop thread (perhaps before `submit` returns). Callable
    /// from inside this session's callbacks: a sender submits the next request from the
    /// previous one's completion, and the bytes go out with the `produce()` after the read.
    func submit(_ request: HTTP2Request, timeout: Double?, cancellation: RequestCancellation? = nil,
                in session: HTTP2Session, receiver: any HTTP2ResponseReceiver) {
        session.connection.loop.preconditionInLoop()
        guard cancellation?.claim() ?? true else {
            receiver.received(.failure(TransportError(.internalFailure, "The request's RequestCancellation was submitted before; a handle serves one request, so the request was not sent.")))
            return
        }
        if cancellation?.isCancelled == true {
            receiver.received(.failure(Self.cancelledError))
            return
        }
        if let goAway = session.state.goAway {
            receiver.received(.failure(TransportError(.notProcessed, "The server sent GOAWAY \(HTTP2Session.describe(goAway)); the request was not sent: open a new connection.")))
            return
        }
        guard session.isStarted, !session.closed else {
            let why = session.closeError?.message ?? "The connection to \(session.peer) is closed."
            receiver.received(.failure(TransportError(.notProcessed, "\(why) The request was not sent.")))
            return
        }
        let settings = session.settings
        let id = session.withHeaderScratch { headers in
            // The caller's `neverIndexedHeaders` (perhaps :path, an id) are new on every
            // request: never indexed, so they do not push the reusable ones out of both
            // peers' HPACK tables.
            headers.append(pseudoHeaders(request.method, request.scheme, request.authority ?? session.connection.host ?? "")) { _ in false }
            headers.append(name: ":path", value: request.path, indexed: !settings.neverIndexesPath)
            var hasContentLength = false
            if let shared = request.sharedHeaders {
                headers.append(shared) { settings.isNeverIndexed($0) }
                hasContentLength = shared.hasContentLength
            }
            for header in request.headers {
                headers.append(name: header.name, value: header.value, indexed: !settings.isNeverIndexed(header.name))
                if header.name.utf8.count == 14, header.name == "content-length" { hasContentLength = true }
            }
            if let authorization = request.authorization {
                headers.append(name: "authorization", value: authorization, indexed: !settings.neverIndexesAuthorization)
            }
            if !request.body.isEmpty, !hasContentLength {
                headers.append(name: "content-length", decimal: request.body.count)
            }
            return session.submitRequest(&headers, hasBody: !request.body.isEmpty)
        }
        guard id > 0 else {
            receiver.received(.failure(TransportError(.internalFailure, "nghttp2 refused the request: \(String(cString: nghttp2_strerror(id))).")))
            return
        }
        let stream = cancellation ?? Stream()
        stream.receiver = receiver
        stream.requestBody = request.body
        stream.timeout = timeout ?? 0
        stream.hasDeadline = timeout != nil
        streams.insert(stream, for: Int(id))
        let deadline = timeout.map { EventLoop.nowMillis() + TimerSeconds.milliseconds($0) }
        apply(session.state.streamStarted(id, deadline: deadline), in: session)
        // A record the client made itself has no caller to cancel it: no resetter needed.
        if let cancellation, !cancellation.attach(resetter(for: session), stream: id) {
            abandon(id, Self.cancelledError, in: session)
        }
        session.produceUnlessReceiving()
    }

    /// `:method`, `:scheme` and `:authority`, encoded once: a client sends the same three on
    /// nearly every request (never indexed: none, as before the block). `:path` is the
    /// request's own and follows it.
    private func pseudoHeaders(_ method: String, _ scheme: String, _ authority: String) -> HTTP2HeaderBlock {
        // Compared where it lies: `if let last = lastPseudoHeaders` copied the tuple out and
        // destroyed the copy through the runtime's generic tuple code, once per request.
        if lastPseudoHeaders?.method == method, lastPseudoHeaders?.scheme == scheme, lastPseudoHeaders?.authority == authority,
           let block = lastPseudoHeaders?.block {
            return block
        }
        let block = HTTP2HeaderBlock([(":method", method), (":scheme", scheme), (":authority", authority)])
        lastPseudoHeaders = (method, scheme, authority, block)
        return block
    }

    /// The session's one `StreamResetter`, made at its first cancellable request.
    private func resetter(for session: HTTP2Session) -> StreamResetter {
        if let streamResetter { return streamResetter }
        let made = StreamResetter(role: self, session: session)
        streamResetter = made
        return made
    }

    /// Takes stream `id` out of the book (and its deadline out of the state machine).
    @discardableResult
    private func remove(_ id: Int32, in session: HTTP2Session) -> Stream? {
        guard let stream = streams.removeValue(for: Int(id)) else { return nil }
        if stream.hasDeadline { session.state.streamEnded(id) }
        return stream
    }

    private func apply(_ timer: HTTP2ConnectionStateMachine.SweepTimer, in session: HTTP2Session) {
        guard case .arm(let deadline) = timer else { return }
        let loop = session.connection.loop
        loop.cancelTimer(sweepTimer)
        let now = EventLoop.nowMillis()
        let delay = deadline > now ? Double(deadline - now) / 1000 : 0
        sweepTimer = loop.schedule(after: delay) { [weak self, weak session] in
            guard let self, let session else { return }
            self.sweepDeadlines(in: session)
        }
    }

    /// Times out every stream past its deadline, then re-arms for the earliest one left.
    private func sweepDeadlines(in session: HTTP2Session) {
        sweepTimer = nil
        let (expired, timer) = session.state.sweepTimerFired(now: EventLoop.nowMillis())
        for id in expired {
            guard let stream = stream(id) else { continue }
            abandon(id, TransportError(.timeout, "\(session.peer) did not answer the request within \(HTTP2Session.seconds(stream.timeout))."), in: session)
        }
        apply(timer, in: session)
    }

    /// Gives up a request that is still waiting (timed out, or cancelled by its caller): resets
    /// its stream with CANCEL so the server frees the slot, ends it with `error`, and drops
    /// whatever the server still sends on it. A stream that already ended is left alone.
    func abandon(_ id: Int32, _ error: TransportError, in session: HTTP2Session) {
        session.connection.loop.preconditionInLoop()
        guard session.isStarted, let stream = remove(id, in: session) else { return }
        session.resetStream(id, NGHTTP2_CANCEL.rawValue)
        stream.tell(.failure(error))
        session.produce()
    }

    /// Resumes once the peer's first SETTINGS frame arrived (the connection is really usable;
    /// with TLS 1.3 a rejected client certificate shows up here as an alert instead). After
    /// `timeout` seconds without one, the connection is closed with a timeout error.
    func waitForSettings(timeout: Double, in session: HTTP2Session, _ continuation: CheckedContinuation<Void, Error>) {
        session.connection.loop.preconditionInLoop()
        if receivedSettings { continuation.resume(); return }
        if session.closed {
            continuation.resume(throwing: session.closeError ?? TransportError(.connectionClosed, "The connection is closed."))
            return
        }
        let timer = session.connection.loop.schedule(after: timeout) { [weak self, weak session] in
            guard let self, let session, !self.receivedSettings else { return }
            session.connection.fail(TransportError(.timeout, "\(session.peer) completed the TLS handshake but sent no HTTP/2 SETTINGS within \(HTTP2Session.seconds(timeout))."))
        }
        readyWaiters.append((continuation, timer))
    }
}
