// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import CNGHTTP2

/// What an `HTTP2Session` asks of its role: the client half (`HTTP2ClientRole`: requests out,
/// responses in) or the server half (`HTTP2ServerRole`: requests in, answers out).
///
/// The core session owns nghttp2 and the connection and calls these from nghttp2's callbacks
/// and its own events, passing itself, so a role keeps no reference back (the way a swift-nio
/// handler gets its context with every event). Loop thread only.
protocol HTTP2SessionRole: AnyObject {
    /// Who the peer is, in sentences: "client" or "server".
    var peerKind: String { get }
    /// How many received bytes nghttp2 is fed at a time, sending what it produced after each.
    var receiveSlice: Int { get }

    /// The TLS handshake is done; nil to go on, or why the connection must close.
    func handshakeCompleted(_ info: TLSHandshakeInfo, in session: HTTP2Session) -> TransportError?
    /// Adds the role's callbacks and options, then creates its kind of nghttp2 session, which
    /// allocates through `memory` (nil: malloc).
    func newSession(_ created: inout OpaquePointer?, callbacks: OpaquePointer, option: OpaquePointer, memory: UnsafeMutablePointer<nghttp2_mem>?,
                    user: UnsafeMutableRawPointer) -> Int32
    /// Our first SETTINGS. `peerPresentedCertificate`: false for a client that authenticates
    /// in its requests instead.
    func localSettings(_ settings: HTTP2Settings, peerPresentedCertificate: Bool) -> [nghttp2_settings_entry]
    /// Neither side has anything more to say: close the connection.
    func bothSidesDone(_ connection: Connection)
    /// The sentence for a peer whose header list on stream `id` passed `limit` bytes.
    func headerListViolation(peer: String, limit: UInt32, stream id: Int32) -> TransportError

    func beginHeaders(_ frame: UnsafePointer<nghttp2_frame>, in session: HTTP2Session)
    /// One header; 0, or `session.refuseHeaderList(id)` when the stream's list is over the limit.
    func header(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>,
                in session: HTTP2Session) -> Int32
    func dataChunk(_ id: Int32, _ data: UnsafeBufferPointer<UInt8>, in session: HTTP2Session)
    /// A frame the core does not handle itself (it keeps SETTINGS, GOAWAY and PING acks).
    func frameReceived(_ frame: UnsafePointer<nghttp2_frame>, in session: HTTP2Session)
    /// nghttp2 is about to send `frame` (a role that wants this registers the callback in
    /// `newSession`); 0 to send it, or an nghttp2 error code to drop it.
    func beforeFrameSend(_ frame: UnsafePointer<nghttp2_frame>, in session: HTTP2Session) -> Int32
    func streamClosed(_ id: Int32, errorCode: UInt32, in session: HTTP2Session)
    /// nghttp2's data provider: the next part of stream `id`'s body; `end` once it is all out.
    func readBody(_ id: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, end: inout Bool, in session: HTTP2Session) -> Int
    /// The peer's SETTINGS (not an ack) arrived.
    func remoteSettingsReceived(in session: HTTP2Session)
    /// The peer's GOAWAY arrived (`session.state.goAway`).
    func goAwayReceived(in session: HTTP2Session)
    /// nghttp2 has processed one slice of received bytes (its frames' callbacks are done).
    func receiveProcessed(in session: HTTP2Session)
    /// The connection is gone; `failure` says why, for whatever still waits.
    func sessionClosed(_ failure: TransportError, in session: HTTP2Session)
}
