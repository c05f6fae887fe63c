// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronized
import NIOCore

/// The inbox's connections per peer address: past `limit` a new one is closed as soon as it is
/// accepted, so one client holding idle connections cannot take every slot of
/// `InboxServer.maxConnections` (64 silent connections once made every API request wait until
/// they closed). The gateway has the same rule (`--max-connections-per-peer`).
final class PeerConnectionCounter: Sendable {
    let limit: Int
    /// Open connections per peer address.
    private let open = Locked([String: Int]())

    init(limit: Int) { self.limit = limit }

    /// Counts a connection from `peer`, or false (not counted) when it has `limit` already.
    func admit(_ peer: String) -> Bool {
        open.withLock { open in
            guard open[peer, default: 0] < limit else { return false }
            open[peer, default: 0] += 1
            return true
        }
    }

    func release(_ peer: String) {
        open.withLock { open in
            open[peer, default: 1] -= 1
            if open[peer] == 0 { open[peer] = nil }
        }
    }
}

/// Sits in each inbox connection's pipeline: admits it with `PeerConnectionCounter` when
/// added, closes it if refused, and releases its count when the connection goes away.
final class PeerConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let counter: PeerConnectionCounter
    private var admittedPeer: String?

    init(counter: PeerConnectionCounter) { self.counter = counter }

    func handlerAdded(context: ChannelHandlerContext) {
        let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if counter.admit(peer) {
            admittedPeer = peer
        } else {
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let admittedPeer { counter.release(admittedPeer) }
        admittedPeer = nil
    }
}
