// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket that listens but never accepts: connects succeed (the kernel completes them
/// into the backlog) and then nothing is ever said. Closed in deinit.
public final class SilentListener: @unchecked Sendable {
    public let fd: Int32
    public let port: Int

    public init() {
        (fd, port) = bindLoopbackTCP()
        listen(fd, 16)
    }

    deinit { close(fd) }
}

/// A TCP socket bound to 127.0.0.1 on a port the kernel picked, and that port.
public func bindLoopbackTCP() -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    return (fd, bindLoopback(fd))
}

/// Binds `fd` to 127.0.0.1 on a port the kernel picks; returns that port.
private func bindLoopback(_ fd: Int32) -> Int {
    var address = loopbackAddress(port: 0)
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A loopback port held for as long as this value lives: a socket bound to 127.0.0.1 on a port
/// the kernel picked, with SO_REUSEADDR, that never listens. Tests never pick a free port,
/// close it and hope it stays free (another test's port-0 bind could take it in between); they
/// hold one of these instead:
/// - as a port nothing listens on: a connect is refused (no listener), and no other socket of
///   the machine gets the port while it is held;
/// - as the port of a server that takes its port on the command line and can neither bind 0
///   nor be handed a socket (nghttpx and tinyproxy refuse port 0; nghttpd and
///   `openssl s_server` do not say which port 0 gave them; the mock's revocation URL is written
///   into certificates before the mock starts). The server binds the same port beside it:
///   Linux lets a second socket with SO_REUSEADDR bind, and listen on, a port whose other
///   sockets have SO_REUSEADDR and do not listen (every server here sets it), while a bind to
///   port 0 and a connect's ephemeral port never take a port bound this way.
/// Closed in deinit: keep it alive until the test is done with the port
/// (`withExtendedLifetime`, or hold it beside the server, as `BackgroundProcess.serving` does).
public final class ReservedPort: @unchecked Sendable {
    public let port: Int
    private let fd: Int32

    public init() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        port = bindLoopback(fd)
        self.fd = fd
    }

    deinit { close(fd) }
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
public func loopbackAccepts(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = loopbackAddress(port: port)
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    return rc == 0
}

private func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}
