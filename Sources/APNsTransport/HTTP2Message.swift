// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore

/// One HTTP/2 request, as a client sends it or a server handler receives it.
package struct HTTP2Request: Sendable {
    package var method: String
    package var path: String
    /// `:authority`; clients default it to the host they connected to.
    package var authority: String?
    package var scheme: String
    /// Regular headers (lowercase names), in order; pseudo-headers are the fields above.
    /// Client side and requests built in code; a server fills `received` instead.
    package var headers: [(name: String, value: String)]
    /// Server side: the regular headers as they arrived, as bytes (what a handler on a busy
    /// path reads); `allHeaders` and `header(_:)` include them.
    package var received = HTTP2HeaderFields()
    /// Client side: fields many requests share (a batch's topic, push type, priority,
    /// expiration), encoded once and sent before `headers`; nil for none. A server never
    /// fills it: what it received is all in `received`.
    package var sharedHeaders: HTTP2HeaderBlock?
    /// Client side: an `authorization` value sent after `headers`. Kept apart because it
    /// changes per attempt (a provider token is renewed) while `headers` is made once per
    /// message: appending it to a shared header array copied the whole array on every send.
    /// A server sees it among `received`, as sent.
    package var authorization: String?
    package var body: [UInt8]
    /// Server side: the client sent more than `HTTP2Settings.maxBodySize` bytes of body. The
    /// request is handed over as soon as it passes the bound, with the first
    /// `maxBodySize + 1` bytes in `body` (so a size check fails), and whatever more the client
    /// sends on the stream is discarded; the stream is reset (NO_ERROR) once the answer is out.
    package var bodyOverLimit = false
    /// Server side: the certificate the client presented in the TLS handshake, if any.
    package var clientCertificate: Certificate?
    /// Server side: which connection the request came on (unique per server), so a handler
    /// can keep per-connection state such as the provider token in use.
    package var connectionID: Int = 0
    /// Server side: the client's address, for logs.
    package var remoteAddress: String = ""

    package init(method: String = "POST", path: String, authority: String? = nil, scheme: String = "https",
                headers: [(name: String, value: String)] = [], sharedHeaders: HTTP2HeaderBlock? = nil, authorization: String? = nil,
                body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.authority = authority
        self.scheme = scheme
        self.headers = headers
        self.sharedHeaders = sharedHeaders
        self.authorization = authorization
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        let lower = name.lowercasedHeaderName
        if lower == "authorization", let authorization { return authorization }
        if let shared = sharedHeaders?.fields.first(where: { $0.name == lower }) { return shared.value }
        return headers.first { $0.name == lower }?.value ?? received.value(of: lower)
    }

    /// Every regular header as sent, in order: the shared block's, `headers`, then
    /// `authorization` (client side), and what a server received (`received`).
    package var allHeaders: [(name: String, value: String)] {
        (sharedHeaders?.fields ?? []) + headers + (authorization.map { [(name: "authorization", value: $0)] } ?? []) + received.pairs
    }

    /// The regular headers as bytes: what a server received, or for a request built in code
    /// (a handler called directly, in tests) `allHeaders` turned into bytes.
    package var receivedHeaders: HTTP2HeaderFields {
        received.isEmpty ? HTTP2HeaderFields(allHeaders) : received
    }

    /// `receivedHeaders`' bytes and fields, read in place: a server's request lends its own
    /// (making the value to read retained and released both of its arrays, per request).
    package func withReceivedFields<Result>(
        _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<HTTP2HeaderFields.Field>) throws -> Result
    ) rethrows -> Result {
        if !received.isEmpty { return try received.withUnsafeFields(body) }
        return try receivedHeaders.withUnsafeFields(body)
    }
}

/// One HTTP/2 response: what a client receives or a server handler answers with.
package struct HTTP2Response: Sendable {
    package var status: Int
    package var headers: [(name: String, value: String)]
    /// Server side: header fields written as bytes, sent after `headers`: for an answer made
    /// many times a second, which a handler writes into one `HTTP2HeaderFields` it keeps per
    /// connection and refills (no array of pairs and no String per answer). Client side empty:
    /// a received answer's headers are in `headers`.
    package var fields: HTTP2HeaderFields
    package var body: [UInt8]
    /// Server side: what to do with the connection once this response is queued.
    package var afterward: ConnectionAction
    /// Server side: announce this SETTINGS_MAX_CONCURRENT_STREAMS with the answer (a server
    /// that starts some clients at a low limit raises it once it trusts them).
    package var announceMaxConcurrentStreams: UInt32?

    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.init(status: status, headers: headers, fields: HTTP2HeaderFields(), body: body)
    }

    /// An answer whose headers (after any `headers`) were written as bytes (see `fields`).
    /// Every stored property is set here, none by a default value: with defaults, the compiled
    /// init built the answer and then copied it (a retain and a release of each of its arrays)
    /// for every answer.
    package init(status: Int, headers: [(name: String, value: String)] = [], fields: HTTP2HeaderFields, body: [UInt8] = [],
                 afterward: ConnectionAction = .keepOpen, announceMaxConcurrentStreams: UInt32? = nil) {
        self.status = status
        self.headers = headers
        self.fields = fields
        self.body = body
        self.afterward = afterward
        self.announceMaxConcurrentStreams = announceMaxConcurrentStreams
    }

    /// The first value of header `name` (case-insensitive), in `headers` or `fields`.
    package func header(_ name: String) -> String? {
        let lower = name.lowercasedHeaderName
        return headers.first { $0.name == lower }?.value ?? (fields.isEmpty ? nil : fields.value(of: lower))
    }

    /// Every header in the order it is sent: `headers`, then `fields`.
    package var allHeaders: [(name: String, value: String)] {
        fields.isEmpty ? headers : headers + fields.pairs
    }

    /// The body as UTF-8 text (error bodies are usually small JSON objects).
    package var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// HTTP/2 settings we announce, and how we encode our headers.
package struct HTTP2Settings: Sendable {
    /// How many streams the peer may open towards us at once.
    package var maxConcurrentStreams: UInt32
    /// Per-stream receive window.
    package var initialWindowSize: UInt32
    /// Connection-level receive window.
    package var connectionWindowSize: Int32
    /// The largest header list (RFC 9113 size: name + value + 32 per field) one request or
    /// response may carry; announced as SETTINGS_MAX_HEADER_LIST_SIZE and enforced, since
    /// nghttp2 leaves that to the application. Without it, HPACK lets a peer send one 4 KB
    /// header and then reference it with one byte each: a 150 KB header block decoded to over
    /// 500 MB in the mock. The requests and answers this carries hold a few hundred bytes of
    /// headers (the longest a bearer token of about 200), so 16 KiB is generous; a peer going
    /// over it gets GOAWAY ENHANCE_YOUR_CALM and the connection closes.
    package var maxHeaderListSize: UInt32
    /// The largest body the peer may send on one stream: a request's (server) or an answer's
    /// (client). A server answers a request over it at once (the mock: 413 PayloadTooLarge,
    /// before END_STREAM) and stores nothing more of it; a client fails the request with a
    /// sentence and cancels the stream. Without it, one endless upload took the mock to 3.5 GB
    /// in 8 seconds, and a 1 GB answer took `verify` to 1.1 GB. The callers' answers carry a
    /// small JSON body and their requests a few KB, so the 64 KiB default is generous. A
    /// connection so holds at most `maxConcurrentStreams` x this many body bytes.
    package var maxBodySize: Int
    /// Server: a connection that has sent no request frame (HEADERS or DATA) for this many
    /// seconds gets GOAWAY (NO_ERROR with `idleGoAwayDebug`) and is closed; nil: never. Without
    /// it a client that opens connections and sends nothing holds the server's connection
    /// slots for good.
    package var idleTimeout: Double?
    /// Each session allocates nghttp2's blocks from a pool of its own (`SessionMemoryPool`):
    /// about six blocks per request, each pair some 160 instructions cheaper than glibc's. The
    /// pool keeps at most 128 KiB of freed blocks per connection. false: every block comes from
    /// malloc, so a memory checker (ASan, valgrind) sees each one; the fuzz harness runs so.
    package var pooledSessionMemory = true
    /// The GOAWAY debug data of an idle close (the caller's wording, e.g. a JSON reason).
    package var idleGoAwayDebug = ""
    /// Server: a connection with no request frame or answer for this many seconds hands its
    /// TLS and output buffers back (`Connection.releaseIdleBuffers`), checked by the server's
    /// sweep (at least once a second), so a busy connection keeps its buffers and an idle one
    /// holds a few KB. nil: never released.
    package var releaseBuffersAfter: Double? = 1
    /// Headers we send (lower-case names; a client may list `:path`) whose values differ on
    /// every message, such as ids: a client's request headers, a server's response headers.
    /// They are sent as HPACK literals that are never indexed: indexing them would only push
    /// reusable entries (a topic, a user-agent) out of both peers' tables and cost both sides
    /// time. The caller knows its protocol's headers; the transport knows none (empty: every
    /// header is indexed, as nghttp2 does by default).
    package var neverIndexedHeaders: [String] = [] {
        didSet {
            neverIndexedLengths = neverIndexedHeaders.reduce(0) { $0 | Self.lengthBit($1.utf8.count) }
            neverIndexesPath = isNeverIndexed(":path")
            neverIndexesAuthorization = isNeverIndexed("authorization")
        }
    }
    /// `isNeverIndexed(":path")` and `isNeverIndexed("authorization")`, which a client asks of
    /// every request: derived once, as `neverIndexedLengths` is.
    private(set) var neverIndexesPath = false
    private(set) var neverIndexesAuthorization = false
    /// One bit per length of a `neverIndexedHeaders` name (bit 63: 63 bytes or more), so a name
    /// of any other length, which is most of them, is ruled out by one test; every header of
    /// every message is asked (`isNeverIndexed`).
    private var neverIndexedLengths: UInt64 = 0
    private static func lengthBit(_ length: Int) -> UInt64 { 1 << UInt64(min(length, 63)) }
    /// Client: the response header names (lower case) the caller reads; the others are
    /// counted against `maxHeaderListSize` but not stored, so an answer costs no String for a
    /// header nobody keeps (an echoed id on every answer). nil: every header is kept.
    package var keptResponseHeaders: [String]? {
        didSet { keptResponseHeaderBytes = keptResponseHeaders?.map { Array($0.utf8) } }
    }
    /// `keptResponseHeaders` as bytes, compared with what nghttp2 hands over without a String.
    private(set) var keptResponseHeaderBytes: [[UInt8]]?

    /// Whether a response header named `name` (lower case, as HTTP/2 requires) is stored.
    func keepsResponseHeader(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let kept = keptResponseHeaderBytes else { return true }
        return kept.contains { candidate in
            candidate.count == name.count && candidate.withUnsafeBufferPointer { name.hasBytes(of: $0) }
        }
    }
    /// Server: offered instead of `maxConcurrentStreams` to a client that presented no
    /// certificate (nil: the same to all), who must earn more streams with a request the
    /// server accepts; the server raises it with `HTTP2Response.announceMaxConcurrentStreams`.
    package var maxConcurrentStreamsWithoutClientCertificate: UInt32?

    /// `isNeverIndexed(_:)` of a name given as bytes (lower case), without making a String.
    func isNeverIndexed(bytes name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard neverIndexedLengths & Self.lengthBit(name.count) != 0 else { return false }
        return neverIndexedHeaders.contains { candidate in
            candidate.utf8.count == name.count && candidate.utf8.withContiguousStorageIfAvailable { name.hasBytes(of: $0) } == true
        }
    }

    /// Whether `name` is one of `neverIndexedHeaders` (HTTP/2 names are case-insensitive).
    /// Lengths first, as most names differ in length and a failed String comparison is an
    /// out-of-line call; lower-cased only for a name that has upper-case letters.
    func isNeverIndexed(_ name: String) -> Bool {
        let length = name.utf8.count
        guard neverIndexedLengths & Self.lengthBit(length) != 0 else { return false }
        for candidate in neverIndexedHeaders where candidate.utf8.count == length {
            if candidate == name { return true }
            if name.utf8.contains(where: { (65...90).contains($0) }), candidate == name.lowercased() { return true }
        }
        return false
    }

    package init(maxConcurrentStreams: UInt32 = 1000, initialWindowSize: UInt32 = 1 << 20, connectionWindowSize: Int32 = 16 << 20,
                maxHeaderListSize: UInt32 = 16 << 10, maxBodySize: Int = 64 << 10, idleTimeout: Double? = nil) {
        self.maxConcurrentStreams = maxConcurrentStreams
        self.initialWindowSize = initialWindowSize
        self.connectionWindowSize = connectionWindowSize
        self.maxHeaderListSize = maxHeaderListSize
        self.maxBodySize = maxBodySize
        self.idleTimeout = idleTimeout
    }
}

/// What a server does with a connection after answering a request: how the mock gateway
/// plays a gateway going away or a dropped connection.
package enum ConnectionAction: Sendable, Equatable {
    case keepOpen
    /// Send GOAWAY with `debug` as its debug data (e.g. a JSON reason); streams above the last
    /// processed one are refused.
    case goAway(code: UInt32, debug: String)
    /// Send the response, then close the TCP connection without GOAWAY.
    case close
    /// Close at once without answering: the client cannot know whether it was processed.
    case dropWithoutResponse
}

extension String {
    /// `lowercased()` for a header name, skipped when there is nothing to lower (no ASCII
    /// capital, nothing beyond ASCII): callers pass lower-case names, and the sender asks every
    /// answer for an id header, where `lowercased()` cost a walk through the Unicode tables.
    var lowercasedHeaderName: String {
        // Over the contiguous bytes: `utf8.contains` went through the view's generic iterator
        // at about 30 instructions a byte.
        let plain = utf8.withContiguousStorageIfAvailable { bytes in !bytes.contains { $0 &- UInt8(ascii: "A") < 26 || $0 >= 0x80 } }
        return plain == true ? self : lowercased()
    }
}
