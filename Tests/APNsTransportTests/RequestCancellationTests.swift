// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport
import Dispatch
import Synchronized
import Testing

/// A request's written/cancelled decision (issue 33: one atomic word where a lock was): the
/// promise behind `.cancelled(written: false)`, that a request given up before its HEADERS
/// frame was written is never written.
@Suite("RequestCancellation decides once")
struct RequestCancellationTests {
    @Test("Cancelled first: never written, and every cancel() says not written")
    func cancelledFirst() {
        let request = RequestCancellation()
        #expect(!request.isCancelled)
        #expect(request.cancel() == false)
        #expect(request.markWritten() == false)
        #expect(request.isCancelled)
        #expect(!request.wasWritten)
        #expect(request.cancel() == false)
    }

    @Test("Written first: a later cancel() says written, again and again")
    func writtenFirst() {
        let request = RequestCancellation()
        #expect(request.markWritten())
        #expect(request.wasWritten)
        #expect(!request.isCancelled)
        #expect(request.cancel())
        #expect(request.isCancelled)
        #expect(request.cancel())
    }

    /// The loop thread's `markWritten` and a task's `cancel()` at the same moment, 20,000 times
    /// on two threads: exactly one wins each time, and both sides agree which.
    @Test("Racing threads: cancel() says written exactly when markWritten() went ahead")
    func racingThreadsAgree() {
        let disagreements = Locked(0)
        for _ in 0..<20_000 {
            let request = RequestCancellation()
            let said = Locked((written: false, cancelSaid: false))
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                if side == 0 {
                    let written = request.markWritten()
                    said.withLock { $0.written = written }
                } else {
                    let cancelSaid = request.cancel()
                    said.withLock { $0.cancelSaid = cancelSaid }
                }
            }
            let (written, cancelSaid) = said.withLock { ($0.written, $0.cancelSaid) }
            if written != cancelSaid || request.cancel() != cancelSaid || request.wasWritten != written || !request.isCancelled {
                disagreements.withLock { $0 += 1 }
            }
        }
        #expect(disagreements.withLock { $0 } == 0)
    }
}
