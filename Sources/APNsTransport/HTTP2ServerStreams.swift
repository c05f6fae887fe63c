// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// The streams of an `HTTP2ServerRole`: the requests being received, and the bodies of the
/// answers being sent.
///
/// nghttp2 calls back once per header, about ten times per request, so at 100,000 requests a
/// second every String, dictionary lookup, allocation and array growth here shows in
/// profiles. Hence:
/// - the request whose HEADERS block is being decoded is a field of its own (a block's header
///   callbacks come in a row), not looked up per header; only a request still waiting for its
///   DATA is parked in a dictionary, and no object is made per stream;
/// - regular headers are copied as bytes into the request's `HTTP2HeaderFields`, one
///   byte array and one row of offsets per field: no String per header (the handler makes
///   Strings of the few values it reads), and nothing to destroy when a request is recycled;
/// - the four pseudo-headers are found by their bytes, and a value equal to what the previous
///   request sent for the same one (a client's method, scheme and authority, and often its
///   path) is reused instead of copied into a new String;
/// - a delivered request comes back (`recycle`) and the next stream refills its header and
///   body arrays, which keep their capacity: no array is allocated and freed per request
///   once a connection has seen its usual number of streams in flight.
///
/// Loop-thread only; owned by its `HTTP2ServerRole`. Its stored variables are
/// `@exclusivity(unchecked)`: the runtime's check of each access (begin, end, a thread-local
/// lookup: some 80 instructions) was 6% of the mock's instructions per request, and no access
/// here can overlap another: the class is private to one loop thread, and no method calls out
/// (to nghttp2, a closure or another object) while it reads or writes one of them.
final class HTTP2ServerStreams {
    /// The request whose HEADERS block is being decoded, on stream `currentID` (0: none), and
    /// its header list size so far (RFC 9113: name + value + 32 per field).
    /// nil between blocks: a request is moved in and out of it, never copied (replacing a
    /// request held here destroyed it, and its copy of `template` retained every field).
    @exclusivity(unchecked) private var current: HTTP2Request?
    @exclusivity(unchecked) private var currentID: Int32 = 0
    @exclusivity(unchecked) private var currentHeaderBytes = 0
    /// The largest header list a stream may send (`HTTP2Settings.maxHeaderListSize`).
    private let maxHeaderListSize: Int
    /// Requests whose headers are complete, waiting for the rest of their body (and the
    /// header list size they used, which trailers add to).
    @exclusivity(unchecked) private var waiting: [Int32: (request: HTTP2Request, headerBytes: Int)] = [:]
    /// Answers with a body, until nghttp2 has read all of it.
    @exclusivity(unchecked) private var answers: [Int32: (body: [UInt8], offset: Int)] = [:]
    /// A new stream's request: the connection's fields already set (`connectionOpened`).
    @exclusivity(unchecked) private var template = HTTP2Request(method: "", path: "")
    /// Regular headers the previous request had: the next one reserves that many rows at once.
    @exclusivity(unchecked) private var lastHeaderCount = 4
    /// Delivered requests, refilled by new streams (`recycle`); at most `maxSpares`.
    @exclusivity(unchecked) private var spares: [HTTP2Request] = []
    /// Enough for the 100 streams in flight a client typically keeps (a busy gateway's own
    /// limit is often 1,000); beyond it a request's arrays are simply freed.
    private static let maxSpares = 128
    /// A spare whose body grew past this gives its body back instead of keeping it, so the
    /// spares of a connection hold at most `maxSpares` x 1 KB of bodies however large the
    /// payloads it once received (most notifications are well under 1 KB).
    private static let maxSpareBody = 1024
    /// The same for a spare's header bytes: a usual request has a few hundred (a bearer token
    /// is some 200), the header list may have up to `maxHeaderListSize`.
    private static let maxSpareHeaderBytes = 2048
    /// Per pseudo-header (`pseudoHeader(_:)`'s index): the value the previous request sent.
    @exclusivity(unchecked) private var lastValues: [String?] = [nil, nil, nil, nil]

    /// The largest request body kept (`HTTP2Settings.maxBodySize`).
    private let maxBodySize: Int

    init(maxHeaderListSize: Int, maxBodySize: Int) {
        self.maxHeaderListSize = maxHeaderListSize
        self.maxBodySize = maxBodySize
    }

    /// The TLS handshake is done: every request on this connection carries these.
    func connectionOpened(clientCertificate: Certificate?, connectionID: Int, remoteAddress: String) {
        template.clientCertificate = clientCertificate
        template.connectionID = connectionID
        template.remoteAddress = remoteAddress
    }

    /// A HEADERS block starts: a new request, or trailers of one waiting for its end.
    func beginHeaders(_ id: Int32, newRequest: Bool) {
        if newRequest {
            if var spare = spares.popLast() {
                refill(&spare)
                current = consume spare
            } else {
                var fresh = template
                fresh.received.reserveFields(lastHeaderCount)
                current = consume fresh
            }
            currentID = id
            currentHeaderBytes = 0
        } else if let parked = waiting.removeValue(forKey: id) {
            current = parked.request
            currentID = id
            currentHeaderBytes = parked.headerBytes
        } else {
            currentID = 0
        }
    }

    /// Adds one header to stream `id`'s request; false when the stream's header list has gone
    /// over `maxHeaderListSize` (the header is not stored; the session ends the connection).
    func header(_ id: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard id == currentID else { return true }
        currentHeaderBytes += name.count + value.count + 32
        guard currentHeaderBytes <= maxHeaderListSize else { return false }
        guard let pseudo = Self.pseudoHeader(name) else {
            current?.received.append(name: name, value: value)
            return true
        }
        let text = reusedValue(pseudo, value)
        switch pseudo {
        case 0: current?.method = text
        case 1: current?.scheme = text
        case 2: current?.authority = text
        default: current?.path = text
        }
        return true
    }

    /// Stream `id`'s HEADERS block is complete: its request if the client ended the stream
    /// with it, else nil (the request waits for its DATA).
    func headersEnded(_ id: Int32, endStream: Bool) -> HTTP2Request? {
        guard id == currentID else { return nil }
        currentID = 0
        var taken: HTTP2Request?
        swap(&taken, &current)  // moved out, not copied
        guard let request = consume taken else { return nil }
        if endStream { return finished(request) }
        waiting[id] = (consume request, currentHeaderBytes)
        return nil
    }

    /// Adds a DATA chunk to stream `id`'s request. When the body passes `maxBodySize`, the
    /// request is returned at once, cut at `maxBodySize + 1` bytes and marked `bodyOverLimit`;
    /// the stream is then no longer waiting, so the rest of its DATA is dropped here.
    func data(_ id: Int32, _ chunk: UnsafeBufferPointer<UInt8>) -> HTTP2Request? {
        // One hash, and the body appended in place (reading the entry out copied the whole
        // request and released it again).
        guard let index = waiting.index(forKey: id) else { return nil }
        guard let stored = Self.append(chunk, to: &waiting.values[index], limit: maxBodySize) else { return nil }
        var request = waiting.remove(at: index).value.request
        request.body.append(contentsOf: chunk.prefix(maxBodySize + 1 - stored))
        request.bodyOverLimit = true
        return finished(request)
    }

    /// Appends `chunk` to a waiting request's body in place (an `inout` entry: reading it
    /// through the dictionary's getter copied the whole request and released it again); nil,
    /// or when the body would pass `limit`, the body's size so far (nothing appended).
    private static func append(_ chunk: UnsafeBufferPointer<UInt8>, to entry: inout (request: HTTP2Request, headerBytes: Int),
                               limit: Int) -> Int? {
        let stored = entry.request.body.count
        guard stored + chunk.count <= limit else { return stored }
        entry.request.body.append(contentsOf: chunk)
        return nil
    }

    /// The client ended stream `id` with a DATA frame: its request.
    func dataEnded(_ id: Int32) -> HTTP2Request? {
        guard let parked = waiting.removeValue(forKey: id) else { return nil }
        return finished(parked.request)
    }

    /// Consumed and handed back: returning a borrowed request would copy it (a retain per field).
    private func finished(_ request: consuming HTTP2Request) -> HTTP2Request {
        lastHeaderCount = request.received.count
        return request
    }

    /// A spare made ready for a new stream. Only this connection's requests are spares, so
    /// the connection's fields are already the template's. The arrays are unique again unless
    /// a handler kept the request (then emptying them makes fresh ones, copy-on-write). The
    /// template's fields are read one by one: passing the whole template copied it.
    private func refill(_ spare: inout HTTP2Request) {
        spare.method = template.method
        spare.path = template.path
        spare.authority = template.authority
        spare.scheme = template.scheme
        spare.body.removeAll(keepingCapacity: true)
        spare.bodyOverLimit = false
    }

    /// A request its handler has seen: its arrays are refilled by a later stream.
    func recycle(_ request: consuming HTTP2Request) {
        guard spares.count < Self.maxSpares else { return }
        if request.body.capacity > Self.maxSpareBody { request.body = [] }
        request.received.removeAll(keepingAtMost: Self.maxSpareHeaderBytes)
        spares.append(request)
    }

    /// Keeps a non-empty answer body for `readBody`.
    func setResponseBody(_ id: Int32, _ body: [UInt8]) {
        if !body.isEmpty { answers[id] = (body, 0) }
    }

    /// nghttp2's data provider: copies the next part of stream `id`'s answer into `buffer`.
    func readBody(_ id: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, end: inout Bool) -> Int {
        guard let answer = answers[id] else { end = true; return 0 }
        let count = min(buffer.count, answer.body.count - answer.offset)
        if count > 0 {
            answer.body.withUnsafeBufferPointer {
                buffer.baseAddress!.update(from: $0.baseAddress! + answer.offset, count: count)
            }
        }
        answers[id]!.offset += count
        end = answer.offset + count >= answer.body.count
        return count
    }

    func streamClosed(_ id: Int32) {
        if currentID == id { currentID = 0 }
        if !waiting.isEmpty { waiting[id] = nil }
        if !answers.isEmpty { answers[id] = nil }
    }

    func removeAll() {
        currentID = 0
        current = nil
        waiting.removeAll()
        answers.removeAll()
        spares.removeAll()
    }

    // MARK: names and values

    /// `:method`, `:scheme`, `:authority`, `:path` as 0 to 3; nil for any other name (a
    /// regular header: its first byte is not a colon).
    private static func pseudoHeader(_ name: UnsafeBufferPointer<UInt8>) -> Int? {
        guard name.count > 1, name[0] == UInt8(ascii: ":") else { return nil }
        switch name.count {
        case 5: return Self.is(name, ":path") ? 3 : nil
        case 7: return Self.is(name, ":method") ? 0 : (Self.is(name, ":scheme") ? 1 : nil)
        case 10: return Self.is(name, ":authority") ? 2 : nil
        default: return nil
        }
    }

    private static func `is`(_ name: UnsafeBufferPointer<UInt8>, _ pseudo: StaticString) -> Bool {
        pseudo.withUTF8Buffer { name.hasBytes(of: $0) }
    }

    private func reusedValue(_ known: Int, _ value: UnsafeBufferPointer<UInt8>) -> String {
        if let last = lastValues[known],
           last.utf8.withContiguousStorageIfAvailable({ value.hasBytes(of: $0) }) == true {
            return last
        }
        let text = String(decoding: value, as: UTF8.self)
        lastValues[known] = text
        return text
    }
}
