// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronized

/// How many connections a server (or several: the mock gateway's three ports share one) keeps
/// open at once.
///
/// Why: every open connection holds a file descriptor, an `SSL*`, a read buffer and an
/// nghttp2 session, so a client that opens connections without end would otherwise run the
/// process out of descriptors or memory. A connection beyond the limit is accepted and closed
/// at once (the client sees the connection closed during the TLS handshake, instead of
/// hanging in the listen queue), and a log line says so, at most one a second.
///
/// Slots are taken on the loop thread and given back by `Slot.deinit`, which runs wherever
/// the last reference to a socket goes (a task may hold a connection), hence the lock (the
/// refusal log's rate limit, used on the loop thread only, shares it: one lock, no promise).
///
/// One address may hold at most `perPeer` of the slots, so a single client that opens
/// connections and leaves them idle cannot lock every other client out (a server facing the
/// internet cannot tell a provider from an attacker, only one address from another).
package final class ConnectionLimit: Sendable {
    package let maximum: Int
    package let perPeer: Int
    /// Ends the refusal line: what to change to allow more (the mock says `--max-connections`).
    private let hint: String
    private let perPeerHint: String
    private let log: @Sendable (String) -> Void
    private struct State {
        var open = 0
        var openByPeer: [String: Int] = [:]
        /// The refusal log's rate limit.
        var refusedSinceLine = 0
        /// Connections refused since start (`GET /api/stats`' `connection-limit`).
        var refused = 0
        var lastLine: UInt64 = 0
    }

    private let state = Locked(State())

    /// Connections refused at the limit since start.
    package var refused: Int { state.withLock { $0.refused } }
    /// Connections admitted and not yet closed: zero once every client has gone and the
    /// server has read all they wrote (tests wait for it instead of for quiet).
    package var open: Int { state.withLock { $0.open } }

    package init(maximum: Int, perPeer: Int? = nil, hint: String = "", perPeerHint: String = "", log: @escaping @Sendable (String) -> Void) {
        self.maximum = maximum
        self.perPeer = perPeer ?? maximum
        self.hint = hint
        self.perPeerHint = perPeerHint
        self.log = log
    }

    /// Held by an admitted socket; its deinit (the socket closed) frees the slot.
    final class Slot {
        private let limit: ConnectionLimit
        private let address: String
        init(_ limit: ConnectionLimit, address: String) {
            self.limit = limit
            self.address = address
        }
        deinit {
            limit.state.withLock { state in
                state.open -= 1
                let left = (state.openByPeer[address] ?? 1) - 1
                state.openByPeer[address] = left > 0 ? left : nil
            }
        }
    }

    /// Gives `socket` a slot, or refuses it (the caller drops it, which closes it). Loop thread.
    func admit(_ socket: Socket, peer: String, port: Int) -> Bool {
        let address = Self.address(of: peer)
        let refusal: String? = state.withLock { state in
            guard state.open < maximum else { return "\(maximum) connections are open, the limit\(hint.isEmpty ? "" : "; \(hint)")" }
            let fromPeer = state.openByPeer[address] ?? 0
            guard fromPeer < perPeer else {
                return "\(perPeer) connections from \(address) are open, the limit for one address\(perPeerHint.isEmpty ? "" : "; \(perPeerHint)")"
            }
            state.open += 1
            state.openByPeer[address] = fromPeer + 1
            return nil
        }
        guard let refusal else {
            socket.slot = Slot(self, address: address)
            return true
        }
        let now = EventLoop.nowMillis()
        // The line is written outside the lock; `others` is what this line stands for.
        let others: Int? = state.withLock { state in
            state.refusedSinceLine += 1
            state.refused += 1
            guard state.lastLine == 0 || now - state.lastLine >= 1000 else { return nil }
            defer {
                state.refusedSinceLine = 0
                state.lastLine = now
            }
            return state.refusedSinceLine - 1
        }
        if let others {
            log("refused a connection from \(peer) on port \(port)\(others > 0 ? " (and \(others) more since the last such line)" : ""): \(refusal).")
        }
        return false
    }

    /// The address part of "127.0.0.1:5000" or "[::1]:5000".
    static func address(of peer: String) -> String {
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        let host = peer[..<colon]
        return host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : String(host)
    }
}
