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
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}
