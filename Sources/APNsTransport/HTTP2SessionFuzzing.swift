// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronized

/// Feeds arbitrary bytes into a real `HTTP2Session`, server or client role, with no socket and
/// no TLS: the glue between nghttp2 and our requests and responses (header and body bounds,
/// answers before END_STREAM, stream bookkeeping, completions) meets frames no well-behaved
/// peer sends. For the `http2` fuzz target and its deterministic pass in CI; not a transport.
package enum HTTP2SessionFuzzing {
    /// What one input did.
    package struct Outcome: Sendable {
        /// Server: requests handed to the handler, and the largest body among them.
        package var requests = 0
        package var largestRequestBody = 0
        /// Server: requests over the body bound whose flag was wrong (must stay 0).
        package var misflaggedBodies = 0
        /// Client: completions of the one request submitted (must end at exactly 1), and the
        /// largest answer body a completion carried.
        package var completions = 0
        package var largestResponseBody = 0
    }

    /// The settings both roles use here: a small body bound, so inputs reach it; nghttp2's
    /// blocks from malloc, not the session's pool, so the sanitizer sees every one of them.
    package static let settings = {
        var settings = HTTP2Settings(maxConcurrentStreams: 100, maxHeaderListSize: 4096, maxBodySize: 5120)
        settings.pooledSessionMemory = false
        return settings
    }()

    /// Runs `bytes` through a session on the shared loop (its connections are loop-confined),
    /// in pieces of `chunk` bytes; the server role is sent the client preface first. The
    /// connection is closed at the end, so every pending completion has run when this returns.
    package static func feed(_ bytes: [UInt8], asServer: Bool, chunk: Int) throws -> Outcome {
        let context = try sharedContext.get()
        // Written on the loop thread, read here after the semaphore.
        let result = Locked(Outcome())
        let done = DispatchSemaphore(value: 0)
        let loop = EventLoop.shared
        loop.execute {
            let outcome = run(bytes, asServer: asServer, chunk: chunk, context: context, loop: loop)
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }
    }

    /// `feed` on the loop thread.
    private static func run(_ bytes: [UInt8], asServer: Bool, chunk: Int, context: SSLContext, loop: EventLoop) -> Outcome {
        var outcome = Outcome()
        let connection = Connection(detachedOn: loop, context: context, host: "fuzz.invalid")
        let server = HTTP2ServerRole(settings: settings)
        let client = HTTP2ClientRole()
        let session = HTTP2Session(connection: connection, settings: settings, role: asServer ? server : client)
        server.onRequest = { stream, request in
            outcome.requests += 1
            outcome.largestRequestBody = max(outcome.largestRequestBody, request.body.count)
            if request.bodyOverLimit != (request.body.count > settings.maxBodySize) { outcome.misflaggedBodies += 1 }
            stream.respond(HTTP2Response(status: 200, body: Array(#"{"ok":1}"#.utf8)))
        }
        do {
            try session.startDetached()
        } catch {
            return outcome
        }
        if !asServer {
            let request = HTTP2Request(path: "/fuzz/00", headers: [(name: "x-topic", value: "com.example.app")], body: Array(#"{"aps":{}}"#.utf8))
            client.submit(request, timeout: nil, in: session, receiver: ClosureReceiver { result in
                outcome.completions += 1
                if case .success(let response) = result {
                    outcome.largestResponseBody = max(outcome.largestResponseBody, response.body.count)
                }
            })
        }
        let input = asServer ? Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + bytes : bytes
        input.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, connection.state == .open {
                let count = min(max(1, chunk), raw.count - offset)
                session.connection(connection, didRead: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + count)]))
                offset += count
            }
        }
        connection.close(error: nil)
        return outcome
    }

    /// One TLS context for all inputs (a detached connection never uses it for TLS).
    private static let sharedContext = Result { try SSLContext(.client(identity: nil, trust: .system, verification: .none), server: false) }
}
