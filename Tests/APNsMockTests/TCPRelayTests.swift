// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The relay is test support, but it shares the test process with every other suite: a
/// descriptor it touches after closing it can be another test's socket by then. A CI run once
/// had the in-process mock refuse connections on its own port mid-test (ReliabilityTests); a
/// shutdown(2) of a listening socket does exactly that, and `stop()` used to shut down the
/// numbers of every pair it had ever relayed, closed or not.
@Suite("TCPRelay: touches only its own descriptors")
struct TCPRelayTests {
    @Test("stop() after a relayed connection closed leaves a listener that took over its descriptor numbers accepting")
    func stopLeavesReusedNumbersAlone() async throws {
        var probed = 0
        for _ in 0..<5 where probed == 0 {
            let target = EchoOnceServer()
            let relay = try TCPRelay(target: UInt16(target.port))
            relay.up()
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            #expect(connectLoopback(client, port: Int(relay.port)))
            close(client)  // both pumps see end-of-file and the relay closes the pair
            let pair = try #require(await Wait.value(seconds: 10, every: .milliseconds(10)) { relay.pairDescriptors.first.flatMap { $0.closed ? $0 : nil } })
            // New sockets take the lowest free numbers: open listeners until they hold the pair's.
            var listeners: [(fd: Int32, port: Int)] = []
            for _ in 0..<256 {
                let listener = bindLoopbackTCP()
                listen(listener.fd, 16)
                listeners.append(listener)
                if listener.fd >= max(pair.client, pair.upstream) { break }
            }
            relay.stop()
            for listener in listeners where listener.fd == pair.client || listener.fd == pair.upstream {
                probed += 1
                #expect(loopbackAccepts(port: listener.port), "relay.stop() shut down descriptor \(listener.fd), no longer its own")
            }
            listeners.forEach { close($0.fd) }
        }
        #expect(probed > 0, "no listener took over a closed pair's numbers in 5 tries (other tests took them first)")
    }
}

/// Accepts one connection, reads it to its end, closes it.
private final class EchoOnceServer: @unchecked Sendable {
    let port: Int
    init() {
        let (fd, port) = bindLoopbackTCP()
        self.port = port
        listen(fd, 4)
        Thread {
            let connection = accept(fd, nil, nil)
            var buffer = [UInt8](repeating: 0, count: 1024)
            while connection >= 0, read(connection, &buffer, buffer.count) > 0 {}
            if connection >= 0 { close(connection) }
            close(fd)
        }.start()
    }
}

private func connectLoopback(_ fd: Int32, port: Int) -> Bool {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
}
