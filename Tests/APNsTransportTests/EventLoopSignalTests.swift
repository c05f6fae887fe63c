// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A library must not change process-wide signal handling behind its host's back.
@Suite("Event loop: SIGPIPE without touching the process")
struct EventLoopSignalTests {
    @Test("A write to a vanished peer on the loop thread gets EPIPE, and SIGPIPE is not ignored process-wide")
    func sigpipeStaysOnTheLoopThread() async {
        let loop = EventLoop(name: "apnskit.test.sigpipe")
        defer { loop.shutdown() }
        let error: Int32 = await withCheckedContinuation { continuation in
            loop.execute {
                var fds: [Int32] = [0, 0]
                guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
                    continuation.resume(returning: -1)
                    return
                }
                close(fds[1])
                var byte: UInt8 = 1
                // With SIGPIPE neither blocked on this thread nor ignored, this kills the test process.
                let written = write(fds[0], &byte, 1)
                let saved = errno
                close(fds[0])
                continuation.resume(returning: written < 0 ? saved : 0)
            }
        }
        #expect(error == EPIPE)
        var action = sigaction()
        sigaction(SIGPIPE, nil, &action)
        let handler = action.__sigaction_handler.sa_handler.map { unsafeBitCast($0, to: Int.self) } ?? 0
        #expect(handler != 1, "the library set SIGPIPE to SIG_IGN for the whole process")
    }
}
