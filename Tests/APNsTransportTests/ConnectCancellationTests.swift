// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport
import Foundation
import Testing
import TestSupport

/// Issue 32: a connect is given up when its task is cancelled (what `close()` does to the pool's
/// connects in progress), instead of running on to its timeout after its owner has gone.
@Suite("HTTP2Client.connect honours cancellation")
struct ConnectCancellationTests {
    @Test("A connect stuck in its TLS handshake ends as cancelled, not at its timeout (600 s)", .timeLimit(.minutes(1)))
    func cancelledInTheHandshake() async throws {
        // Connects complete in the kernel's backlog; no TLS byte ever comes back.
        let listener = SilentListener()
        let connect = Task {
            try await HTTP2Client.connect(to: Endpoint(host: "127.0.0.1", port: listener.port), tls: .client(identity: nil), timeout: 600)
        }
        // Cancel once the attempt has reached the handshake: the kernel completed its connection
        // into the listener's backlog (a cancel before it is honoured too, by the test below).
        #expect(await Wait.until(seconds: 30) { TCPTable.count(port: listener.port, state: .established) >= 1 }, "the connect never reached the listener")
        connect.cancel()
        do {
            _ = try await connect.value
            Issue.record("a connect to a silent listener succeeded")
        } catch let error as TransportError {
            #expect(error.kind == .cancelled, "\(error)")
        }
        _ = listener
    }

    @Test("A connect cancelled before it starts makes no connection")
    func cancelledBeforeItStarts() async throws {
        let listener = SilentListener()
        let connect = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await HTTP2Client.connect(to: Endpoint(host: "127.0.0.1", port: listener.port), tls: .client(identity: nil), timeout: 600)
        }
        await #expect(throws: TransportError.self) { _ = try await connect.value }
        _ = listener
    }
}
