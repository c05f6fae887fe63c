// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Name resolution off the loop thread: `getaddrinfo` blocks, and a slow DNS server must not
/// stall every other connection on the loop.
enum Resolver {
    static func resolve(_ endpoint: Endpoint) async throws -> [SocketAddress] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try SocketAddress.resolve(endpoint.dialed) })
            }
        }
    }

    /// The sentence for a connect/handshake that did not finish in time, by how far it got.
    static func timeoutMessage(_ endpoint: Endpoint, _ state: Connection.State, _ seconds: Double) -> String {
        let time = HTTP2Session.seconds(seconds)
        switch state {
        case .connecting: return "Could not connect to \(endpoint.proxy.map { "the proxy \($0)" } ?? endpoint.description): no TCP connection within \(time)."
        case .tunneling: return "The proxy \(endpoint.proxy?.description ?? "") did not open a tunnel to \(endpoint) within \(time)."
        default: return "\(endpoint) accepted the TCP connection but did not complete the TLS handshake within \(time)."
        }
    }
}

extension Endpoint {
    /// The addresses `host` resolves to, as text ("127.0.0.1", "[::1]"), resolved off the
    /// calling thread. For reports (`verify`'s dns step); connecting resolves by itself.
    package func resolvedAddresses() async throws -> [String] {
        try await Resolver.resolve(self).map(\.description)
    }

    /// "10 seconds", "0.5 seconds": how durations read in transport sentences.
    package static func seconds(_ value: Double) -> String { HTTP2Session.seconds(value) }
}
