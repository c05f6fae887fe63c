// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// One HTTP/1.1 exchange over a plain socket, one request per connection: the mock's own small
/// clients (`mock expect` and `mock faults` asking the inbox's API, the webhook posting to a
/// receiver). Plain HTTP on an address the user gave, no TLS, no redirects, no proxies, so the
/// system's HTTP stack (libcurl behind FoundationNetworking) would only add a dependency.
///
/// One deadline bounds the whole exchange (connecting, sending, and the whole answer), however
/// the peer paces its bytes: a receiver that trickles its answer a byte every few seconds once
/// held a webhook POST for 19 s and `mock expect --timeout 2` for 23 s (issue 31). It blocks the
/// calling thread (polling the socket at least every `pollSlice` seconds, so a caller's
/// `abandoned` is seen at once): only a command's main thread or a thread of one's own (the
/// webhook's), never an event loop.
package struct PlainHTTP: Sendable {
    package let host: String
    package let port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    package struct Answer: Sendable {
        package let status: Int
        package let body: [UInt8]
    }

    /// What went wrong, as data; the caller words it (it knows what the address stands for).
    package enum Failure: Error, Sendable, Equatable {
        /// `getaddrinfo` found no address for `host`.
        case unresolvable
        /// No socket could be made; the errno.
        case noSocket(Int32)
        /// connect() failed (refused, unreachable); the errno. ETIMEDOUT: not within the deadline.
        case unreachable(Int32)
        /// The peer closed before the whole request was sent.
        case closedBeforeRequest
        /// The request was sent and the peer closed (errno 0) or reset (the errno) the
        /// connection without a byte of answer: a server past its connection limit does this.
        case closedWithoutAnswer(errno: Int32)
        /// The peer closed after `received` bytes, before its answer was complete.
        case cutShort(received: Int)
        /// The deadline passed: no complete answer within `seconds`; `received` bytes had come.
        case noAnswer(seconds: Double, received: Int)
        /// The caller gave up (`abandoned` turned true); whether the whole request was sent.
        case abandoned(requestSent: Bool)
        /// The answer grew past the limit given.
        case tooLarge(limit: Int)
        /// What came back is not an HTTP/1.x answer; its first bytes.
        case notHTTP(opening: [UInt8])

        /// Whether the peer may have taken the request: it was sent whole, and no answer said
        /// what became of it.
        package var requestMayHaveArrived: Bool {
            switch self {
            case .closedWithoutAnswer, .cutShort, .noAnswer, .abandoned(requestSent: true), .tooLarge, .notHTTP: return true
            case .unresolvable, .noSocket, .unreachable, .closedBeforeRequest, .abandoned(requestSent: false): return false
            }
        }
    }

    /// How often a blocked exchange looks at `abandoned`.
    static let pollSlice = 0.1

    /// `host:port` as it goes in a URL and a `Host` header (an IPv6 literal in brackets).
    package var authority: String { "\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// Sends `method target` with `headers` and `body`, and reads the answer, all within
    /// `timeout` seconds; an answer larger than `maxAnswer` bytes is refused. `keepBody` false
    /// throws the body away as it arrives (the webhook only wants the status). `abandoned` is
    /// asked every `pollSlice` seconds: true ends the exchange (`.abandoned`).
    package func exchange(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
                          timeout: Double, maxAnswer: Int, keepBody: Bool = true,
                          abandoned: () -> Bool = { false }) throws(Failure) -> Answer {
        let deadline = Date().addingTimeInterval(timeout)
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { throw .unresolvable }
        defer { freeaddrinfo(list) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { throw .noSocket(errno) }
        defer { close(descriptor) }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        func ready(for events: Int32) -> Readiness { Self.wait(descriptor, for: Int16(events), until: deadline, abandoned: abandoned) }

        if connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else { throw .unreachable(errno) }
            switch ready(for: POLLOUT) {
            case .ready: break
            case .timedOut: throw .unreachable(ETIMEDOUT)
            case .abandoned: throw .abandoned(requestSent: false)
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
            guard error == 0 else { throw .unreachable(error) }
        }

        let request = self.request(method, target, headers: headers, body: body)
        var sent = 0
        while sent < request.count {
            let count = request.withUnsafeBytes { send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sent += count
                continue
            }
            guard count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { throw .closedBeforeRequest }
            switch ready(for: POLLOUT) {
            case .ready: continue
            case .timedOut: throw .noAnswer(seconds: timeout, received: 0)
            case .abandoned: throw .abandoned(requestSent: false)
            }
        }

        var reader = HTTPAnswerReader(maxAnswer: maxAnswer, keepBody: keepBody)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !reader.isComplete {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                do { try reader.append(buffer[0..<count]) } catch {
                    switch error {
                    case .tooLarge: throw .tooLarge(limit: maxAnswer)
                    case .notHTTP: throw .notHTTP(opening: reader.opening)
                    }
                }
                continue
            }
            if count == 0 {
                // The peer closed: an answer without a length ends here.
                guard reader.received > 0 else { throw .closedWithoutAnswer(errno: 0) }
                guard reader.status != nil else { throw .notHTTP(opening: reader.opening) }
                break
            }
            let code = errno
            guard code == EAGAIN || code == EWOULDBLOCK || code == EINTR else {
                guard reader.received > 0 else { throw .closedWithoutAnswer(errno: code) }
                throw .cutShort(received: reader.received)
            }
            switch ready(for: POLLIN) {
            case .ready: continue
            case .timedOut: throw .noAnswer(seconds: timeout, received: reader.received)
            case .abandoned: throw .abandoned(requestSent: true)
            }
        }
        guard let status = reader.status else { throw .notHTTP(opening: reader.opening) }
        return Answer(status: status, body: reader.decodedBody())
    }

    enum Readiness { case ready, timedOut, abandoned }

    /// Waits for `descriptor` to be ready for `events`, until `deadline`, looking at
    /// `abandoned` every `pollSlice`.
    private static func wait(_ descriptor: Int32, for events: Int16, until deadline: Date, abandoned: () -> Bool) -> Readiness {
        while true {
            if abandoned() { return .abandoned }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return .timedOut }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let milliseconds = Int32((min(left, pollSlice) * 1000).rounded(.up))
            if poll(&entry, 1, milliseconds) > 0 { return .ready }
        }
    }

    /// The request's bytes: head (with `Host`, `Content-Length`, `Connection: close`) and body.
    package func request(_ method: String, _ target: String, headers: [(String, String)], body: [UInt8]?) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(authority)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        return Array((head + "Connection: close\r\n\r\n").utf8) + (body ?? [])
    }
}
