// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// One HTTP/1.1 exchange over a plain, blocking socket, one request per connection: the mock's
/// own small clients (`mock expect` and `mock faults` asking the inbox's API, the webhook
/// posting to a receiver). Plain HTTP on an address the user gave, no TLS, no redirects, no
/// proxies, so the system's HTTP stack (libcurl behind FoundationNetworking) would only add a
/// dependency. It blocks the calling thread for at most the timeouts given: only for a
/// command's main thread or a thread of one's own (the webhook's), never an event loop.
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
        /// connect() failed (refused, timed out, unreachable); the errno.
        case unreachable(Int32)
        /// The peer closed before the request was sent.
        case closedBeforeRequest
        /// No complete answer within the time given; the errno of the failed read (0: the
        /// deadline passed between reads).
        case noAnswer(seconds: Double, errno: Int32)
        /// The answer grew past the limit given.
        case tooLarge(limit: Int)
        /// What came back is not an HTTP/1.x answer.
        case notHTTP
    }

    /// `host:port` as it goes in a URL and a `Host` header (an IPv6 literal in brackets).
    package var authority: String { "\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// Sends `method target` with `headers` and `body`, and reads the answer: connecting takes
    /// at most `connectTimeout` seconds, the whole answer at most `answerTimeout`, and an
    /// answer larger than `maxAnswer` bytes is refused.
    package func exchange(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
                          connectTimeout: Double = 10, answerTimeout: Double, maxAnswer: Int) throws(Failure) -> Answer {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { throw .unresolvable }
        defer { freeaddrinfo(list) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { throw .noSocket(errno) }
        defer { close(descriptor) }
        // SO_SNDTIMEO bounds connect() too on Linux; SO_RCVTIMEO each read, and the loop below
        // the whole answer.
        Self.setTimeout(descriptor, SO_SNDTIMEO, seconds: connectTimeout)
        Self.setTimeout(descriptor, SO_RCVTIMEO, seconds: answerTimeout)
        guard connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else { throw .unreachable(errno) }
        let request = self.request(method, target, headers: headers, body: body)
        var sent = 0
        while sent < request.count {
            let count = request.withUnsafeBytes { send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw .closedBeforeRequest }
            sent += count
        }
        let deadline = Date().addingTimeInterval(answerTimeout)
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !Self.isComplete(answer) {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else { throw .noAnswer(seconds: answerTimeout, errno: errno) }
            answer += buffer[0..<count]
            guard answer.count <= maxAnswer else { throw .tooLarge(limit: maxAnswer) }
            guard Date() < deadline else { throw .noAnswer(seconds: answerTimeout, errno: 0) }
        }
        return try Self.parse(answer)
    }

    /// The request's bytes: head (with `Host`, `Content-Length`, `Connection: close`) and body.
    package func request(_ method: String, _ target: String, headers: [(String, String)], body: [UInt8]?) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(authority)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        return Array((head + "Connection: close\r\n\r\n").utf8) + (body ?? [])
    }

    private static func setTimeout(_ descriptor: Int32, _ option: Int32, seconds: Double) {
        let seconds = max(seconds, 0.001)
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        _ = setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// A head longer than this is not an answer of the peers these clients talk to.
    static let maxHead = 65_536

    /// Where the head ends (looked for in the first `maxHead` bytes only, so a peer that never
    /// ends its head costs a bounded scan per read).
    private static func headEnd(_ answer: [UInt8]) -> Int? {
        let limit = min(answer.count, maxHead)
        guard limit >= 4 else { return nil }
        return (0...(limit - 4)).first { answer[$0] == 13 && answer[$0 + 1] == 10 && answer[$0 + 2] == 13 && answer[$0 + 3] == 10 }
    }

    /// The head and a Content-Length body are in: a receiver that keeps the connection open
    /// after answering (despite `Connection: close`) does not hold the reader until its timeout.
    static func isComplete(_ answer: [UInt8]) -> Bool {
        guard let end = headEnd(answer) else { return answer.count > maxHead }
        let lines = String(decoding: answer[0..<end], as: UTF8.self).lowercased().split(separator: "\r\n")
        guard let length = lines.first(where: { $0.hasPrefix("content-length:") })
            .flatMap({ Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }) else { return false }
        return answer.count - (end + 4) >= length
    }

    /// Status line, headers, and the body (Content-Length or chunked, else to the end).
    package static func parse(_ answer: [UInt8]) throws(Failure) -> Answer {
        guard let end = headEnd(answer) else { throw .notHTTP }
        let head = String(decoding: answer[0..<end], as: UTF8.self).split(separator: "\r\n").map(String.init)
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else { throw .notHTTP }
        var body = Array(answer[(end + 4)...])
        let fields = head.dropFirst().map { $0.lowercased() }
        if fields.contains(where: { $0.hasPrefix("transfer-encoding:") && $0.contains("chunked") }) {
            var decoded: [UInt8] = []
            var index = 0
            while index < body.count {
                guard let lineEnd = (index..<body.count - 1).first(where: { body[$0] == 13 && body[$0 + 1] == 10 }),
                      let size = Int(String(decoding: body[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "", radix: 16) else { break }
                if size == 0 { break }
                let start = lineEnd + 2
                guard start + size <= body.count else { break }
                decoded += body[start..<start + size]
                index = start + size + 2
            }
            body = decoded
        } else if let length = fields.first(where: { $0.hasPrefix("content-length:") })
                    .flatMap({ Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }), length < body.count {
            body = Array(body[0..<length])
        }
        return Answer(status: status, body: body)
    }
}
