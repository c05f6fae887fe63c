// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
@testable import APNsTransport
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Work handed to a loop after it stopped (a server's deinit stops it on its loop, often after
/// the test shut the loop down) must not reach another descriptor: `execute` writes a wake-up
/// byte to the loop's pipe, and if the pipe were closed when the thread ended, its numbers
/// could be any socket or pipe opened since.
@Suite("Event loop: execute after shutdown")
struct EventLoopShutdownTests {
    @Test("An execute after the loop's thread ended writes into none of the pipes opened since")
    func lateExecuteWritesNowhereElse() async throws {
        var strayBytes = 0
        for round in 0..<30 {
            let loop = EventLoop(name: "apnskit.test.late.\(round)")
            loop.shutdown()
            #expect(await Wait.until(seconds: 30, every: .milliseconds(1)) { loop.thread?.isFinished ?? true } && loop.thread?.isFinished == true)
            // New pipes take the lowest free numbers: the loop's own, had it closed them.
            var pipes: [[Int32]] = []
            for _ in 0..<4 {
                var fds: [Int32] = [0, 0]
                guard pipe(&fds) == 0 else { continue }
                _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
                pipes.append(fds)
            }
            loop.execute {}
            for fds in pipes {
                var byte: UInt8 = 0
                if read(fds[0], &byte, 1) == 1 { strayBytes += 1 }
                fds.forEach { close($0) }
            }
        }
        #expect(strayBytes == 0, "a late execute wrote its wake-up byte into a pipe opened after the loop stopped")
    }
}
