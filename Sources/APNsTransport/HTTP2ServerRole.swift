// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import CNGHTTP2
import Foundation

/// The server half of an `HTTP2Session`: requests in (`HTTP2ServerStreams` assembles them from
/// nghttp2's callbacks), answers out, a server's own stream rules (an answer before the
/// request ended resets the stream after it, RFC 9113 section 8.1) and the activity its
/// idle timeout measures.
///
/// Not `Sendable`: loop thread only, owned by its session.
final class HTTP2ServerRole: HTTP2SessionRole {
    /// A `let`: nghttp2 calls back into it for every header, and reading a constant needs
    /// neither an exclusivity check nor a retain.
    private let streams: HTTP2ServerStreams
    /// Called on the loop thread with each complete request; answer through the stream.
    var onRequest: ((HTTP2ServerStream, HTTP2Request) -> Void)?
    /// Stamped on every request (`HTTP2Request.connectionID`).
    var connectionID = 0
    /// Streams answered before the client finished sending (a body over `maxBodySize`): reset
    /// with NO_ERROR once the answer is out if the request is still arriving then, so the
    /// client stops sending (RFC 9113 section 8.1).
    ///
    /// This and `resetCheckDue` and `requestCount` are `@exclusivity(unchecked)`: every request
    /// reads or counts them (the runtime's check was some 80 instructions each time), and no
    /// access overlaps another: loop thread only, and no access spans a call out (the list of
    /// due checks is taken out before it is walked).
    @exclusivity(unchecked) private var resetAfterAnswer: Set<Int32> = []
    /// Streams answered early with an empty body during a read: whether to reset them is
    /// decided once the read is processed (`receiveProcessed`), when END_STREAM is known.
    @exclusivity(unchecked) private var resetCheckDue: [Int32] = []
    /// Resets of open streams drawn against the rapid-reset budget; others free.
    private var resetBudget = StreamResetBudget(now: EventLoop.nowMillis())

    /// Resets the client sent: of open, unanswered streams, and of answered or closed ones.
    var resetCounts: (counted: Int, free: Int) { (resetBudget.counted, resetBudget.free) }

    init(settings: HTTP2Settings) {
        streams = HTTP2ServerStreams(maxHeaderListSize: Int(settings.maxHeaderListSize), maxBodySize: settings.maxBodySize)
    }

    // MARK: HTTP2SessionRole

    var peerKind: String { "client" }

    /// A whole read at once: the answers to all of it leave together.
    var receiveSlice: Int { .max }

    func handshakeCompleted(_ info: TLSHandshakeInfo, in session: HTTP2Session) -> TransportError? {
        streams.connectionOpened(clientCertificate: info.peerChain.first, connectionID: connectionID,
                                 remoteAddress: session.connection.remoteAddress)
        return nil
    }

    func newSession(_ created: inout OpaquePointer?, callbacks: OpaquePointer, option: OpaquePointer, memory: UnsafeMutablePointer<nghttp2_mem>?,
                    user: UnsafeMutableRawPointer) -> Int32 {
        // Closed streams are not kept. nghttp2 keeps them only to maintain RFC 7540 priority
        // trees, which RFC 9113 deprecated; keeping them cost about 0.5 us per request.
        nghttp2_option_set_no_closed_streams(option, 1)
        // nghttp2's rapid-reset limiter counts every RST_STREAM, those of streams already
        // answered too; `StreamResetBudget` counts only open streams' instead (§10), so
        // nghttp2's is given a bucket that never empties.
        nghttp2_option_set_stream_reset_rate_limit(option, .max, .max)
        return nghttp2_session_server_new3(&created, callbacks, user, option, memory)
    }

    /// A client without a certificate (it authenticates in its requests) is offered
    /// `maxConcurrentStreamsWithoutClientCertificate` streams if that is set.
    func localSettings(_ settings: HTTP2Settings, peerPresentedCertificate: Bool) -> [nghttp2_settings_entry] {
        let streams = peerPresentedCertificate ? settings.maxConcurrentStreams
                                               : settings.maxConcurrentStreamsWithoutClientCertificate ?? settings.maxConcurrentStreams
        return [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: streams),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: settings.initialWindowSize),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: settings.maxHeaderListSize),
        ]
    }

    /// A server that closed at once could destroy its own GOAWAY: requests the client sent
    /// meanwhile sit unread, and closing with unread input makes the kernel send RST, which
    /// discards what the client has not read yet. So it says close_notify and waits (bounded)
    /// for the client to close first.
    func bothSidesDone(_ connection: Connection) { connection.closeAfterPeer(timeout: 2) }

    func headerListViolation(peer: String, limit: UInt32, stream id: Int32) -> TransportError {
        TransportError(.protocolError, "The client \(peer) sent more than \(limit) bytes of headers on stream \(id) (our SETTINGS_MAX_HEADER_LIST_SIZE); the connection was closed with GOAWAY ENHANCE_YOUR_CALM.")
    }

    func beginHeaders(_ frame: UnsafePointer<nghttp2_frame>, in session: HTTP2Session) {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return }
        session.state.activity(at: session.state.lastInput)
        streams.beginHeaders(frame.pointee.hd.stream_id, newRequest: frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST)
    }

    /// Bytes straight into the request: no String for a name it already knows.
    func header(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>,
                in session: HTTP2Session) -> Int32 {
        let id = frame.pointee.hd.stream_id
        return streams.header(id, name: name, value: value) ? 0 : session.refuseHeaderList(id)
    }

    /// nghttp2 calls back only from inside a read, which stamped `lastInput` with the clock:
    /// that is the activity time, without reading the clock again per frame.
    func dataChunk(_ id: Int32, _ data: UnsafeBufferPointer<UInt8>, in session: HTTP2Session) {
        session.state.activity(at: session.state.lastInput)
        if let request = streams.data(id, data) {
            resetAfterAnswer.insert(id)
            deliver(request, on: id, in: session)
        }
    }

    func frameReceived(_ frame: UnsafePointer<nghttp2_frame>, in session: HTTP2Session) {
        let header = frame.pointee.hd
        let endStream = header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch UInt32(header.type) {
        case NGHTTP2_HEADERS.rawValue:
            if let request = streams.headersEnded(header.stream_id, endStream: endStream) {
                deliver(request, on: header.stream_id, in: session)
            }
        case NGHTTP2_DATA.rawValue:
            if endStream, let request = streams.dataEnded(header.stream_id) {
                deliver(request, on: header.stream_id, in: session)
            }
        case NGHTTP2_RST_STREAM.rawValue:
            // Called before nghttp2 forgets the stream: still there and not yet answered to
            // the end means open. Only those resets cost (CVE-2023-44487).
            guard session.isOpenAndUnanswered(header.stream_id) else {
                resetBudget.freeReset()
                return
            }
            if !resetBudget.spend(now: session.state.lastInput) {
                session.refuse(TransportError(.protocolError, "The client \(session.peer) reset \(resetBudget.counted) streams before they were answered, more than \(StreamResetBudget.burst) at once or \(StreamResetBudget.perSecond) a second (a rapid-reset flood, CVE-2023-44487); the connection was closed with GOAWAY ENHANCE_YOUR_CALM."))
            }
        default:
            break
        }
    }

    /// Not registered: a server drops nothing it is about to send.
    func beforeFrameSend(_ frame: UnsafePointer<nghttp2_frame>, in session: HTTP2Session) -> Int32 { 0 }

    /// Requests handed to `onRequest` on this connection.
    @exclusivity(unchecked) private(set) var requestCount = 0

    /// Hands the request over, then takes it back for its arrays (`HTTP2ServerStreams.recycle`).
    private func deliver(_ request: consuming HTTP2Request, on id: Int32, in session: HTTP2Session) {
        requestCount += 1
        onRequest?(HTTP2ServerStream(session: session, role: self, id: id), request)
        streams.recycle(request)
    }

    func streamClosed(_ id: Int32, errorCode: UInt32, in session: HTTP2Session) {
        streams.streamClosed(id)
        if !resetAfterAnswer.isEmpty { resetAfterAnswer.remove(id) }
    }

    func readBody(_ id: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, end: inout Bool, in session: HTTP2Session) -> Int {
        let count = streams.readBody(id, into: buffer, end: &end)
        // Asked while sending, after the read that brought the request was processed: whether
        // the client ended its stream is known by now.
        if end, !resetAfterAnswer.isEmpty { resetIfAnsweredEarly(id, in: session) }
        return count
    }

    func receiveProcessed(in session: HTTP2Session) {
        guard !resetCheckDue.isEmpty else { return }
        var due: [Int32] = []
        swap(&due, &resetCheckDue)
        for id in due { resetIfAnsweredEarly(id, in: session) }
    }

    func remoteSettingsReceived(in session: HTTP2Session) {}

    func goAwayReceived(in session: HTTP2Session) {}

    func sessionClosed(_ failure: TransportError, in session: HTTP2Session) {
        streams.removeAll()
        onRequest = nil
    }

    // MARK: answering (loop thread)

    /// Answers stream `id` with `response`.
    func respond(_ id: Int32, _ response: HTTP2Response, in session: HTTP2Session) {
        session.connection.loop.preconditionInLoop()
        // nghttp2 knows whether the stream is still open (a client may have reset it while a
        // delayed answer was on its way).
        guard !session.closed, session.hasStream(id) else { return }
        streams.setResponseBody(id, response.body)
        let settings = session.settings
        let rc = session.withHeaderScratch { headers in
            headers.appendStatus(response.status)
            for header in response.headers {
                headers.append(name: header.name, value: header.value, indexed: !settings.isNeverIndexed(header.name))
            }
            if !response.fields.isEmpty { headers.append(response.fields) { settings.isNeverIndexed(bytes: $0) } }
            return session.submitResponse(id, &headers, hasBody: !response.body.isEmpty)
        }
        // An answer made inside a read (the usual, immediate one) is stamped with the read's time.
        session.state.activity(at: session.receiving ? session.state.lastInput : EventLoop.nowMillis())
        if rc != 0 {
            session.resetStream(id, NGHTTP2_INTERNAL_ERROR.rawValue)
        } else if response.body.isEmpty, !resetAfterAnswer.isEmpty, resetAfterAnswer.contains(id) {
            if session.receiving { resetCheckDue.append(id) } else { resetIfAnsweredEarly(id, in: session) }
        }
        session.produceUnlessReceiving()
    }

    /// Answers stream `id` (unless the action says not to), then applies the action.
    func respond(_ id: Int32, _ response: HTTP2Response, then action: ConnectionAction, in session: HTTP2Session) {
        session.connection.loop.preconditionInLoop()
        if let streams = response.announceMaxConcurrentStreams {
            // Queued before the answer: a client that sees the answer already knows the new limit.
            session.announceMaxConcurrentStreams(streams)
        }
        switch action {
        case .keepOpen:
            respond(id, response, in: session)
        case .goAway(let code, let debug):
            respond(id, response, in: session)
            session.goAway(code: code, debug: debug)
        case .close:
            session.closeReason = "dropped"
            respond(id, response, in: session)
            session.produce()
            session.connection.close(error: nil)
        case .dropWithoutResponse:
            session.closeReason = "dropped"
            session.connection.close(error: nil)
        }
    }

    /// A stream answered before its request ended: RST_STREAM(NO_ERROR) after the answer
    /// (queued behind its HEADERS and last DATA), telling the client to stop sending. Only
    /// while the request is still arriving (RFC 9113 §8.1): a client whose request ended,
    /// even in the very frame that went over the limit, gets the answer and nothing after it
    /// (a frame on a closed stream is an error to strict clients such as Python's h2).
    private func resetIfAnsweredEarly(_ id: Int32, in session: HTTP2Session) {
        guard resetAfterAnswer.remove(id) != nil, session.isStillReceiving(id) else { return }
        session.resetStream(id, NGHTTP2_NO_ERROR.rawValue)
    }
}

/// One request's stream on a server session: what a handler answers through. Loop thread
/// only (a handler that answers later carries it in a `LoopBound`).
struct HTTP2ServerStream {
    let session: HTTP2Session
    let role: HTTP2ServerRole
    let id: Int32

    /// Answers with `response`, then does what `response.afterward` says.
    func respond(_ response: HTTP2Response) {
        role.respond(id, response, then: response.afterward, in: session)
    }
}
