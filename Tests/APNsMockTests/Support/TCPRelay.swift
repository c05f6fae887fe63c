// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP relay in front of a server, for failures no server produces on purpose: a
/// gateway that refuses connections (bound, not listening) until `up()`, and connections that
/// die silently (`silenceExisting()`: the sockets stay open, nothing passes, no FIN, no RST),
/// as when a NAT box forgets them. Blocking sockets on plain threads: test code only.
final class TCPRelay: @unchecked Sendable {
    private final class Pair: @unchecked Sendable {
        let client: Int32
        let upstream: Int32
        var silent = false
        /// Pump threads finished; the second one closes both sockets (under the relay's lock,
        /// so `stop()` never shuts down a number that is no longer this pair's).
        var finished = 0
        var closed: Bool { finished == 2 }
        init(client: Int32, upstream: Int32) {
            self.client = client
            self.upstream = upstream
        }
    }

    let port: UInt16
    private let target: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var pairs: [Pair] = []
    private var clientCloses = 0
    private var accepted = 0
    private var stopped = false

    /// Bound to a free loopback port and refusing connections until `up()`.
    init(target: UInt16) throws {
        self.target = target
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw RelayError(message: "bind failed: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    /// Runs once `stop()` ended the threads (they hold the relay until then).
    deinit {
        stop()
        close(listener)
    }

    /// Starts accepting and relaying.
    func up() {
        listen(listener, 64)
        Thread { [self] in acceptLoop() }.start()
    }

    /// Connections the relay accepted so far.
    var acceptedCount: Int { lock.withLock { accepted } }
    /// Connections the client side closed (read end-of-file from the client).
    var clientCloseCount: Int { lock.withLock { clientCloses } }

    /// Every connection open now stops passing bytes either way, without closing.
    func silenceExisting() {
        lock.withLock { for pair in pairs { pair.silent = true } }
    }

    /// Every relayed connection's two descriptors, and whether the relay has closed them.
    var pairDescriptors: [(client: Int32, upstream: Int32, closed: Bool)] {
        lock.withLock { pairs.map { ($0.client, $0.upstream, $0.closed) } }
    }

    /// Stops accepting and ends every relayed connection still open. Call it when done.
    ///
    /// Under the lock, and only for pairs not yet closed: a closed pair's numbers may belong to
    /// another test's socket by now (tests share the process), and shutdown(2) on a listening
    /// socket stops it listening, so connections to that server are refused from then on.
    func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for pair in pairs where !pair.closed {
                shutdown(pair.client, Int32(SHUT_RDWR))
                shutdown(pair.upstream, Int32(SHUT_RDWR))
            }
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: target)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            let pair = Pair(client: client, upstream: upstream)
            lock.withLock {
                pairs.append(pair)
                accepted += 1
            }
            Thread { [self] in pump(pair, from: client, to: upstream, clientSide: true) }.start()
            Thread { [self] in pump(pair, from: upstream, to: client, clientSide: false) }.start()
        }
    }

    private func pump(_ pair: Pair, from: Int32, to: Int32, clientSide: Bool) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            if lock.withLock({ pair.silent }) { continue }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { send(to, $0.baseAddress! + offset, count - offset, Int32(MSG_NOSIGNAL)) }
                if written <= 0 { break }
                offset += written
            }
        }
        if clientSide { lock.withLock { clientCloses += 1 } }
        if !lock.withLock({ pair.silent }) { shutdown(to, Int32(SHUT_WR)) }
        lock.withLock {
            pair.finished += 1
            if pair.closed {
                close(pair.client)
                close(pair.upstream)
            }
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

struct RelayError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
