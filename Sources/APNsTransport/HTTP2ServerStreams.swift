import APNsCredentials
import Foundation

/// The server half of an `HTTP2Session`: the request being received on each stream, and the
/// body of the answer being sent on it.
///
/// nghttp2 calls back once per header, about ten times per request, so at 100,000 requests a
/// second every String, dictionary lookup and array growth here shows in profiles. Hence:
/// - the stream whose HEADERS block is being decoded is kept at hand (its header callbacks
///   come in a row), instead of a dictionary lookup per header;
/// - header names a request usually carries are the same String constants every time, found
///   by their bytes, so no String is made for them and they compare equal by their bits;
/// - a value equal to what the previous request sent for the same known header is reused
///   instead of copied again: a provider sends one token, topic and user-agent on every
///   request of a connection, and the token alone is some 200 bytes.
///
/// Loop-thread only; owned by its session.
final class HTTP2ServerStreams {
    private final class Stream {
        var request: HTTP2Request
        var responseBody: [UInt8] = []
        var offset = 0
        init(_ request: HTTP2Request) { self.request = request }
    }

    private var streams: [Int32: Stream] = [:]
    /// The stream the current HEADERS block belongs to.
    private var decoding: (id: Int32, stream: Stream)?
    /// A new stream's request: the connection's fields already set.
    private let template: HTTP2Request
    /// Regular headers the previous request had: the next one reserves that much at once.
    private var lastHeaderCount = 4
    /// Per known name (same index as `knownNames`): the value the previous request sent.
    private var lastValues: [String?]

    /// Names looked up by bytes; the first four are the request's pseudo-headers.
    private static let knownNames: [String] = [
        ":method", ":scheme", ":authority", ":path",
        "authorization", "apns-id", "apns-expiration", "apns-priority", "apns-topic", "apns-push-type", "apns-collapse-id",
        "content-length", "content-type", "user-agent", "accept", "accept-encoding", "te",
    ]
    private static let knownBytes: [[UInt8]] = knownNames.map { Array($0.utf8) }
    /// For each name length, the known names that long: most lengths have one or none.
    private static let knownByLength: [[Int]] = (0...knownBytes.map(\.count).max()!).map { length in
        knownBytes.indices.filter { knownBytes[$0].count == length }
    }
    private let names = knownNames
    private let bytes = knownBytes
    private let byLength = knownByLength

    init(clientCertificate: Certificate?, connectionID: Int, remoteAddress: String) {
        var request = HTTP2Request(method: "", path: "")
        request.clientCertificate = clientCertificate
        request.connectionID = connectionID
        request.remoteAddress = remoteAddress
        template = request
        lastValues = Array(repeating: nil, count: Self.knownNames.count)
    }

    /// A HEADERS block starts: a new request, or trailers of one in progress.
    func beginHeaders(_ id: Int32, newRequest: Bool) {
        if newRequest {
            let stream = Stream(template)
            stream.request.headers.reserveCapacity(lastHeaderCount)
            streams[id] = stream
            decoding = (id, stream)
        } else {
            decoding = streams[id].map { (id, $0) }
        }
    }

    func header(_ id: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let stream = decoding?.id == id ? decoding?.stream : streams[id] else { return }
        guard let known = knownIndex(name) else {
            stream.request.headers.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            return
        }
        let text = reusedValue(known, value)
        switch known {
        case 0: stream.request.method = text
        case 1: stream.request.scheme = text
        case 2: stream.request.authority = text
        case 3: stream.request.path = text
        default: stream.request.headers.append((names[known], text))
        }
    }

    func data(_ id: Int32, _ chunk: UnsafeBufferPointer<UInt8>) {
        streams[id]?.request.body.append(contentsOf: chunk)
    }

    /// The request on stream `id`, once the client ended it.
    func request(_ id: Int32) -> HTTP2Request? {
        guard let stream = decoding?.id == id ? decoding?.stream : streams[id] else { return nil }
        lastHeaderCount = stream.request.headers.count
        return stream.request
    }

    /// Whether stream `id` is still open (its answer can be sent); keeps `body` for `readBody`.
    func setResponseBody(_ id: Int32, _ body: [UInt8]) -> Bool {
        guard let stream = streams[id] else { return false }
        if !body.isEmpty { stream.responseBody = body }
        return true
    }

    /// nghttp2's data provider: copies the next part of stream `id`'s answer into `buffer`.
    func readBody(_ id: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, end: inout Bool) -> Int {
        guard let stream = streams[id] else { end = true; return 0 }
        let count = min(buffer.count, stream.responseBody.count - stream.offset)
        if count > 0 {
            stream.responseBody.withUnsafeBufferPointer {
                buffer.baseAddress!.update(from: $0.baseAddress! + stream.offset, count: count)
            }
        }
        stream.offset += count
        end = stream.offset >= stream.responseBody.count
        return count
    }

    func streamClosed(_ id: Int32) {
        streams[id] = nil
        if decoding?.id == id { decoding = nil }
    }

    func removeAll() {
        streams.removeAll()
        decoding = nil
    }

    // MARK: names and values

    private func knownIndex(_ name: UnsafeBufferPointer<UInt8>) -> Int? {
        guard name.count < byLength.count else { return nil }
        for index in byLength[name.count] where bytes[index].withUnsafeBufferPointer({ memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0 }) {
            return index
        }
        return nil
    }

    private func reusedValue(_ known: Int, _ value: UnsafeBufferPointer<UInt8>) -> String {
        if var last = lastValues[known] {
            let same = last.withUTF8 { $0.count == value.count && (value.isEmpty || memcmp($0.baseAddress!, value.baseAddress!, value.count) == 0) }
            if same { return last }
        }
        let text = String(decoding: value, as: UTF8.self)
        lastValues[known] = text
        return text
    }
}
