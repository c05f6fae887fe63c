// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import APNsTransport
import Foundation
import Testing
import TestSupport

extension Hardening {
    /// Issue 7, network bounds: a client that opens 1,000 connections to the mock gateway.
    /// The gateway serves up to `--max-connections` at once (default 1,000), closes the rest
    /// at once with a log line, survives running out of file descriptors, and serves normal
    /// requests afterwards.
    @Suite("Hardening: connection floods")
    struct ConnectionFloodTests {
        /// Starts `count` TCP connections to `port` without waiting for them (non-blocking
        /// connect) and never speaks TLS on them: each holds a server slot until the server's
        /// handshake timeout. Returns their descriptors.
        static func openSilentConnections(_ count: Int, port: Int) -> [Int32] {
            OpenFileLimit.raise(toAtLeast: count + 256)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var fds: [Int32] = []
            for _ in 0..<count {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
                guard fd >= 0 else { break }
                _ = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                fds.append(fd)
            }
            return fds
        }

        @Test("1,000 connections to a mock limited to 100: the rest are closed with a log line, memory stays bounded, normal requests work after")
        func beyondTheLimit() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let mock = try await MockServeProcess(in: w, ["--max-connections", "100"])
            defer { mock.kill() }
            let fds = Self.openSilentConnections(1000, port: mock.port)
            #expect(fds.count == 1000)
            #expect(await mock.waitForLog("refused a connection from 127.0.0.1:"), "\(mock.stderr)")
            #expect(mock.stderr.contains("100 connections are open, the limit; --max-connections allows more."), "\(mock.stderr)")
            #expect(mock.isRunning)
            // 100 handshakes waiting cost a few MB; the 900 refused cost nothing.
            #expect(mock.peakRSS > 0 && mock.peakRSS < 96 * 1024, "mock peak RSS \(mock.peakRSS) KiB")
            for fd in fds { close(fd) }
            let push = try await mock.push(w)
            #expect(push.status == 0, "\(push)")
            #expect(await mock.stop() == 143)
        }

        @Test("1,000 connections at once within the default limit (h2load -c 1000) are all served, with bounded memory")
        func thousandServed() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            try await w.expectSuccess("mock", "issue", "--auth-key", "--ca", "ca", "--team-id", "TEAM123456", "--key-id", "ABC123DEFG", "-o", ".")
            // One address may hold 100 by default; h2load opens all 1,000 from 127.0.0.1.
            let mock = try await MockServeProcess(in: w, ["--max-connections-per-peer", "1000"])
            defer { mock.kill() }
            let signer = try APNsTokenSigner.load(authKey: w.dir.file("AuthKey_ABC123DEFG.p8"), keyID: "ABC123DEFG", teamID: "TEAM123456")
            let url = "https://127.0.0.1:\(mock.port)/3/device/\(String(repeating: "ab", count: 32))"
            let payload = try w.dir.write("payload.json", Array(#"{"aps":{"alert":"hi"}}"#.utf8))
            // h2load needs a descriptor per connection too.
            let result = try await ProcessRunner.run("/bin/sh", ["-c", "ulimit -n 4096 2>/dev/null; exec h2load \"$@\"", "h2load",
                                                           "-c", "1000", "-n", "1000", "-d", payload,
                                                           "-H", "authorization: bearer \(try signer.token(issuedAt: Date()))",
                                                           "-H", "apns-topic: com.example.hardening", url])
            #expect(result.stdout.contains("1000 total, 1000 started, 1000 done, 1000 succeeded"), "\(result)")
            #expect(result.stdout.contains("status codes: 1000 2xx"), "\(result)")
            #expect(mock.isRunning)
            #expect(!mock.stderr.contains("refused a connection"), "\(mock.stderr)")
            // About 115 KB per connection (TLS, nghttp2, read buffer) on a 30 MB base: 144 MB measured.
            #expect(mock.peakRSS > 0 && mock.peakRSS < 400 * 1024, "mock peak RSS \(mock.peakRSS) KiB")
            #expect(await mock.stop() == 143)
        }

        @Test("Out of file descriptors (ulimit -n 64): a warning at start, accept() backs off with one log line instead of spinning, and serving resumes")
        func outOfDescriptors() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let mock = try await MockServeProcess(in: w, [], ulimit: "-n 64")
            defer { mock.kill() }
            #expect(mock.stderr.contains("warning: the open-file limit (ulimit -n) is 64"), "\(mock.stderr)")
            let fds = Self.openSilentConnections(200, port: mock.port)
            #expect(await mock.waitForLog("cannot accept connections on port \(mock.port): too many open files (ulimit -n is 64)"), "\(mock.stderr)")
            #expect(mock.isRunning)
            for fd in fds { close(fd) }
            #expect(await mock.waitForLog("accepting connections on port \(mock.port) again."), "\(mock.stderr)")
            let push = try await mock.push(w)
            #expect(push.status == 0, "\(push)")
            #expect(await mock.stop() == 143)
        }
    }
}
