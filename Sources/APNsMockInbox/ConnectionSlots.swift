// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOCore
import NIOHTTPTypes
import Synchronized

/// The connection slots of one of the mock's HTTP servers (the inbox, the revocation
/// responder), kept so that slow peers cannot hold them (issue 31: 48 request bodies sent a
/// byte every 3 s locked the inbox for 45 s, 64 slow `POST /ocsp` the responder).
///
/// - A whole request (head and body) must arrive within `requestSeconds` of the connection
///   being ready for it (opened, or its previous answer sent); else the connection is closed.
/// - At most `total` connections, and `perPeer` from one address. A connection past either
///   limit takes the slot of the connection that has waited longest for its request to
///   arrive, if that one has waited at least `evictAfter` (a client sends its request at once;
///   a trickler or an idle kept-alive connection is the one that yields); else it is closed
///   at once. A connection whose request is being answered (a long poll, a live feed) is
///   never closed for another.
///
/// All connections of a local test run come from 127.0.0.1, so a per-address limit alone
/// could not tell the trickler from `mock expect`; which connection is slow can.
final class ConnectionSlots: Sendable {
    let total: Int
    let perPeer: Int
    let requestSeconds: Int64
    let evictAfter: Duration

    private struct Slot: Sendable {
        let peer: String
        let channel: any Channel
        /// Since when it waits for a whole request; nil while one is answered.
        var waitingSince: ContinuousClock.Instant?
    }

    private struct State: Sendable {
        var slots: [Int: Slot] = [:]
        var nextID = 0
    }

    private let state = Locked(State())

    init(total: Int, perPeer: Int, requestSeconds: Int64, evictAfter: Duration = .seconds(1)) {
        self.total = total
        self.perPeer = perPeer
        self.requestSeconds = requestSeconds
        self.evictAfter = evictAfter
    }

    /// A slot for `channel` (its id), taking a slow connection's if need be; nil: refused.
    func admit(_ channel: any Channel, peer: String) -> Int? {
        let (id, evicted): (Int?, (any Channel)?) = state.withLock { state in
            var evicted: (any Channel)?
            let fromPeer = state.slots.values.filter { $0.peer == peer }.count
            if fromPeer >= perPeer || state.slots.count >= total {
                // From this peer when it is the one at its limit, else from anyone.
                let candidates = state.slots.filter { fromPeer < perPeer || $0.value.peer == peer }
                let now = ContinuousClock.now
                guard let (slowest, slot) = candidates.compactMap({ id, slot in slot.waitingSince.map { (id, $0) } })
                    .filter({ now - $0.1 >= evictAfter }).min(by: { $0.1 < $1.1 }).map({ ($0.0, state.slots[$0.0]!) }) else {
                    return (nil, nil)
                }
                state.slots[slowest] = nil
                evicted = slot.channel
            }
            state.nextID += 1
            state.slots[state.nextID] = Slot(peer: peer, channel: channel, waitingSince: .now)
            return (state.nextID, evicted)
        }
        evicted?.close(promise: nil)
        return id
    }

    /// The request of slot `id` is in whole: it is being answered.
    func answering(_ id: Int) { state.withLock { $0.slots[id]?.waitingSince = nil } }

    /// Slot `id` sent its answer and waits for its next request.
    func waiting(_ id: Int) { state.withLock { $0.slots[id]?.waitingSince = .now } }

    func release(_ id: Int) { state.withLock { $0.slots[id] = nil } }

    /// Connections held now (for tests).
    var held: Int { state.withLock { $0.slots.count } }
}

/// Sits in each connection's pipeline (after the HTTP decoding): takes a slot from
/// `ConnectionSlots` when added (closing the connection if refused), tells it when a request
/// is in and when its answer went out, closes the connection when a request does not arrive
/// whole within the deadline, and frees the slot when the connection goes away.
final class ConnectionSlotHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let slots: ConnectionSlots
    private var id: Int?
    private var deadline: Scheduled<Void>?

    init(slots: ConnectionSlots) { self.slots = slots }

    func handlerAdded(context: ChannelHandlerContext) {
        let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
        guard let id = slots.admit(context.channel, peer: peer) else {
            context.close(promise: nil)
            return
        }
        self.id = id
        startDeadline(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        if let id { slots.release(id) }
        id = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data), let id {
            deadline?.cancel()
            deadline = nil
            slots.answering(id)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), let id {
            slots.waiting(id)
            startDeadline(context)
        }
        context.write(data, promise: promise)
    }

    /// Closes the connection unless a whole request arrives within the deadline.
    private func startDeadline(_ context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: .seconds(slots.requestSeconds)) { channel.close(promise: nil) }
    }
}

/// Whether a request's client is still there. Hummingbird reads nothing from a connection
/// while its request is answered, so a client that left is not seen by `isActive` (the
/// connection sat in CLOSE-WAIT for the rest of a 60 s long poll, issue 31); the kernel's
/// TCP state is: anything but ESTABLISHED means the client closed or reset its side.
enum ClientPresence {
    static func isGone(_ channel: any Channel) async -> Bool {
        guard channel.isActive else { return true }
        guard let provider = channel as? any SocketOptionProvider,
              let info = try? await provider.getTCPInfo().get() else { return false }
        return info.tcpi_state != 1  // TCP_ESTABLISHED (linux/tcp_states.h)
    }
}
