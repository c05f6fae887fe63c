import Foundation

/// A GET to the mock inbox's JSON API (`mock expect`): HTTP/1.1 over a plain socket, one
/// request per connection. The inbox speaks plain HTTP on a port the user gave; no TLS, no
/// redirects, no proxies, so the system's HTTP stack (libcurl behind FoundationNetworking)
/// would only add a dependency.
struct InboxClient {
    let host: String
    let port: Int
    /// The inbox's access token (an inbox bound beyond loopback), sent as a bearer token.
    var token: String?

    /// An answer larger than this is refused: an entry is at most a few KB (a 5 KB payload as
    /// text), and `mock expect` asks for at most `--count` of them plus a handful.
    static let maxAnswer = 32 * 1024 * 1024

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// From `http://HOST:PORT[/][?token=TOKEN]`, as `mock serve` prints it.
    init(url: String) throws {
        let items = URLComponents(string: url)?.queryItems ?? []
        guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host, !host.isEmpty,
              let port = components.port, components.path.isEmpty || components.path == "/",
              items.allSatisfy({ $0.name == "token" && $0.value?.isEmpty == false }) else {
            throw Failure(description: "--ui \(url) is not an inbox address; give it as http://HOST:PORT (with ?token=TOKEN for an inbox beyond this machine), as mock serve prints it.")
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        token = items.first?.value
    }

    init(host: String, port: Int, token: String? = nil) {
        self.host = host
        self.port = port
        self.token = token
    }

    var display: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// GET `path` (with its query, already encoded); the status and the body. `wait` is how long
    /// the server may take to answer (a long poll's timeout) before the read gives up.
    func get(_ path: String, wait: Double) throws -> (status: Int, body: [UInt8]) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw Failure(description: "Cannot resolve \(host), the inbox's host; check --ui.")
        }
        defer { freeaddrinfo(list) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { throw Failure(description: "Cannot open a socket (\(String(cString: strerror(errno))).") }
        defer { close(descriptor) }
        // SO_SNDTIMEO bounds connect() too on Linux; SO_RCVTIMEO each read.
        setTimeout(descriptor, SO_SNDTIMEO, seconds: 10)
        setTimeout(descriptor, SO_RCVTIMEO, seconds: wait + 10)
        guard connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            throw Failure(description: "Cannot reach the inbox at \(display) (\(String(cString: strerror(errno)))); is mock serve running with --ui-port?")
        }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host.contains(":") ? "[\(host)]" : host):\(port)\r\nAccept: application/json\r\n\(token.map { "Authorization: Bearer \($0)\r\n" } ?? "")Connection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            throw Failure(description: "The inbox at \(display) closed the connection before the request was sent.")
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else {
                throw Failure(description: "The inbox at \(display) did not answer within \(Int(wait + 10)) seconds (\(String(cString: strerror(errno)))).")
            }
            answer += buffer[0..<count]
            guard answer.count <= Self.maxAnswer else { throw Failure(description: "The inbox at \(display) sent more than 32 MiB; that is not the inbox's API.") }
        }
        return try Self.parse(answer, from: display)
    }

    private func setTimeout(_ descriptor: Int32, _ option: Int32, seconds: Double) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        _ = setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Status line, headers, and the body (Content-Length or chunked, else to the end).
    static func parse(_ answer: [UInt8], from display: String) throws -> (status: Int, body: [UInt8]) {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, answer.count - 3)).first(where: { Array(answer[$0..<$0 + 4]) == separator }) else {
            throw Failure(description: "The answer from \(display) is not HTTP; is that the inbox's port (ports file key \"ui\")?")
        }
        let head = String(decoding: answer[0..<end], as: UTF8.self).split(separator: "\r\n").map(String.init)
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw Failure(description: "The answer from \(display) is not HTTP; is that the inbox's port (ports file key \"ui\")?")
        }
        var body = Array(answer[(end + 4)...])
        let chunked = head.dropFirst().contains { $0.lowercased().hasPrefix("transfer-encoding:") && $0.lowercased().contains("chunked") }
        if chunked {
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
        }
        return (status, body)
    }
}
