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
    /// The process's SIGPIPE disposition: 1 is SIG_IGN.
    private static func sigpipeHandler() -> Int {
        var action = sigaction()
        sigaction(SIGPIPE, nil, &action)
        return action.__sigaction_handler.sa_handler.map { unsafeBitCast($0, to: Int.self) } ?? 0
    }

    @Test("A write to a vanished peer on the loop thread gets EPIPE, and SIGPIPE is not ignored process-wide")
    func sigpipeStaysOnTheLoopThread() async {
        // The test process is shared: a library another suite runs in it (SwiftNIO under
        // postgres-nio and Hummingbird ignores SIGPIPE for the whole process the first time it
        // makes a socket) may have set SIG_IGN already. Then only "our loop changed nothing" can
        // be checked here; `noLibrarySourceIgnoresSIGPIPE` checks the sources either way.
        let before = Self.sigpipeHandler()
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
        if before != 1 {
            #expect(Self.sigpipeHandler() != 1, "the library set SIGPIPE to SIG_IGN for the whole process")
        }
    }

    /// No library module ignores a signal for the whole process: only the CLI (its own
    /// process, `Sources/apnskit`) may.
    @Test("No library source sets a signal to SIG_IGN")
    func noLibrarySourceIgnoresSIGPIPE() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        let found = try files.filter { $0.hasSuffix(".swift") && !$0.hasPrefix("apnskit/") }.filter { file in
            try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8).contains("SIG_IGN")
        }
        #expect(!files.isEmpty)
        #expect(found.isEmpty, "SIG_IGN in library sources: \(found)")
    }
}
