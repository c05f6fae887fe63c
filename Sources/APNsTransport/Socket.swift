// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A host and port to connect to, e.g. `api.sandbox.push.apple.com:443`.
package struct Endpoint: Sendable, Equatable, CustomStringConvertible {
    package let host: String
    package let port: Int

    /// Reach `host:port` through this HTTP proxy (CONNECT); nil: directly.
    package var proxy: HTTPProxy?

    package init(host: String, port: Int, proxy: HTTPProxy? = nil) {
        self.host = host
        self.port = port
        self.proxy = proxy
    }

    /// The address a connection dials: the proxy's when there is one.
    var dialed: Endpoint { proxy.map { Endpoint(host: $0.host, port: $0.port) } ?? self }

    /// Parses `host:port` or `[v6]:port`.
    package init(parsing text: String) throws {
        let bad = TransportError(.configuration, "\"\(text)\" is not HOST:PORT (for example 127.0.0.1:8443).")
        var hostPart: Substring
        var portPart: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw bad }
            portPart = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw bad }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard !hostPart.isEmpty, let port = PortNumber.parse(portPart) else { throw bad }
        self.init(host: String(hostPart), port: port)
    }

    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether `host` is a literal IPv4/IPv6 address (then it is checked against the
    /// certificate's IP SANs, and no SNI is sent).
    package var hostIsIPAddress: Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}

/// A resolved socket address (what `getaddrinfo` returned), kept as raw bytes so it is Sendable.
struct SocketAddress: Sendable, CustomStringConvertible {
    let family: Int32
    let bytes: [UInt8]

    init(_ pointer: UnsafePointer<sockaddr>, length: socklen_t) {
        family = Int32(pointer.pointee.sa_family)
        bytes = Array(UnsafeRawBufferPointer(start: pointer, count: Int(length)))
    }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        bytes.withUnsafeBytes { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count))
        }
    }

    var description: String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var serv = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let rc = withSockaddr { getnameinfo($0, $1, &host, socklen_t(host.count), &serv, socklen_t(serv.count), NI_NUMERICHOST | NI_NUMERICSERV) }
        guard rc == 0 else { return "?" }
        let h = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let s = String(decoding: serv.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return family == AF_INET6 ? "[\(h)]:\(s)" : "\(h):\(s)"
    }

    /// Resolves `endpoint` (blocking: call it off the loop thread).
    static func resolve(_ endpoint: Endpoint) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &result)
        guard rc == 0, let first = result else {
            let reason = String(cString: gai_strerror(rc))
            throw TransportError(.dns, "Could not resolve \(endpoint.host): \(reason).")
        }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let addr = info.pointee.ai_addr { addresses.append(SocketAddress(addr, length: info.pointee.ai_addrlen)) }
            cursor = info.pointee.ai_next
        }
        return addresses
    }
}

/// Owns one socket file descriptor and closes it exactly once.
final class Socket {
    let fd: Int32
    /// An accepted socket's place under its server's `ConnectionLimit`, freed with the fd.
    var slot: ConnectionLimit.Slot?

    init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }

    /// A non-blocking TCP socket for `family`.
    static func tcp(family: Int32) throws -> Socket {
        #if canImport(Glibc)
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(family, SOCK_STREAM, 0)
        if fd >= 0 { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        #endif
        guard fd >= 0 else { throw TransportError(.connect, "Could not create a socket: \(String(cString: strerror(errno))).") }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return Socket(fd: fd)
    }

    /// Starts a non-blocking connect; returns 0 when connected at once, EINPROGRESS while pending,
    /// or another errno.
    func startConnect(_ address: SocketAddress) -> Int32 {
        let rc = address.withSockaddr { connect(fd, $0, $1) }
        return rc == 0 ? 0 : errno
    }

    /// The pending error after a non-blocking connect finished (0 = connected).
    var pendingError: Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length)
        return value
    }

    /// A listening socket on `host:port` (port 0 = ephemeral) and the port it got.
    static func listen(host: String, port: Int, backlog: Int32 = 511) throws -> (Socket, Int) {
        let addresses = try SocketAddress.resolve(Endpoint(host: host, port: port))
        guard let address = addresses.first else { throw TransportError(.dns, "Could not resolve \(host).") }
        let socket = try Socket.tcp(family: address.family)
        var one: Int32 = 1
        _ = setsockopt(socket.fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let rc = address.withSockaddr { bind(socket.fd, $0, $1) }
        guard rc == 0 else {
            throw TransportError(.configuration, "Could not listen on \(Endpoint(host: host, port: port)): \(String(cString: strerror(errno))).")
        }
        guard systemListen(socket.fd, backlog) == 0 else {
            throw TransportError(.configuration, "Could not listen on \(host): \(String(cString: strerror(errno))).")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket.fd, $0, &length) } }
        let boundPort: Int
        if Int32(storage.ss_family) == AF_INET6 {
            boundPort = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) } }
        } else {
            boundPort = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) } }
        }
        return (socket, boundPort)
    }

    /// What one non-blocking accept() gave.
    enum AcceptResult {
        case accepted(Socket, String)
        /// Nothing is waiting.
        case wouldBlock
        /// A connection went away before we took it (ECONNABORTED), or a signal: try again.
        case retry
        /// No descriptor or memory for it (EMFILE, ENFILE, ENOBUFS, ENOMEM) or anything else
        /// unexpected: it may persist, and the connection stays queued, so back off.
        case failed(Int32)
    }

    /// Accepts one pending connection, non-blocking.
    func accept() -> AcceptResult {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemAccept(self.fd, $0, &length)
            }
        }
        guard fd >= 0 else {
            let code = errno
            switch code {
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case ECONNABORTED, EINTR, EPROTO: return .retry
            default: return .failed(code)
            }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let peer = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0, length: length).description }
        }
        return .accepted(Socket(fd: fd), peer)
    }
}

// The C functions whose names our methods shadow.
#if canImport(Glibc)
private let systemAccept = Glibc.accept
private let systemListen = Glibc.listen
#else
private let systemAccept = Darwin.accept
private let systemListen = Darwin.listen
#endif
