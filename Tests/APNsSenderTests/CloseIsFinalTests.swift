// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
@testable import APNsSender
import Foundation
import Testing
import TestSupport

/// Issue 32: `close()` returning means nothing of the client runs any more: a process may exit
/// right after it (a connect still making its TLS context at exit crashed in OpenSSL's cleanup).
@Suite("close() returns only when no connect of the client is left")
struct CloseIsFinalTests {
    /// A gateway whose connects hang until cancelled and then take a while to end, as a
    /// connect does that is inside `SSL_CTX_new_ex` (which nothing can interrupt).
    final class SlowToEndConnector: ProviderConnector, @unchecked Sendable {
        // @unchecked: the counts and the waiters only under `lock`.
        private let lock = NSLock()
        private var counts = (running: 0, started: 0)
        var running: Int { lock.withLock { counts.running } }
        var started: Int { lock.withLock { counts.started } }

        func connect() async throws(ProviderSendError) -> any ProviderConnection {
            lock.withLock { counts.running += 1; counts.started += 1 }
            defer { lock.withLock { counts.running -= 1 } }
            let hang = Gate()
            await withTaskCancellationHandler { await hang.wait() } onCancel: { hang.open() }
            // The part that cannot be interrupted: blocks its thread, as OpenSSL does (not a wait:
            // the blocked thread is what close() must outwait).
            usleep(300_000)
            throw .cannotConnect("connection refused (scripted)")
        }
    }

    @Test("A connect in progress when close() is called has ended when close() returns")
    func connectInProgress() async throws {
        let connector = SlowToEndConnector()
        let sender = BatchSender(connector: connector, connections: 2)
        let send = Task { await sender.send(notifications(1)[0]) }
        #expect(await Wait.until { connector.started >= 1 }, "the send started a connect")
        await sender.close()
        #expect(connector.running == 0, "close() returned while \(connector.running) connect(s) still ran")
        let result = await send.value
        #expect(!result.mayHaveBeenDelivered, "\(result.outcome)")
    }

    @Test("A back-off in progress when close() is called has ended when close() returns")
    func backOffInProgress() async throws {
        var faults = FakeGateway.Faults()
        faults.unavailableEvery = 1  // every answer 503: the send waits out a back-off
        let gateway = FakeGateway(faults)
        // A back-off of 30 s at least: still asleep when close() comes.
        let sender = BatchSender(connector: gateway, policy: APNsRetryPolicy(maximumAttempts: 3, baseDelay: .seconds(60), maximumDelay: .seconds(60)))
        let send = Task { await sender.send(notifications(1)[0]) }
        #expect(await Wait.until { gateway.requestCount >= 1 }, "the first attempt was answered 503")
        await sender.close()
        #expect(sender.runningTasks == 0, "close() returned while \(sender.runningTasks) task(s) of the sender still ran")
        let result = await send.value
        #expect(result.outcome == .cancelled(written: false), "answered 503, never accepted: safe to resend (\(result.outcome))")
    }
}
