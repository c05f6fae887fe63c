// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronized

/// The broadcast channels the mock has issued, per bundle id (apns-protocol.md §8): what
/// `POST /1/apps/<bundle>/channels` creates, `DELETE` removes, and broadcasts must name.
/// At most `limit` per bundle (Apple: 10,000 per app and environment), and at most
/// `totalLimit` in all: any valid string is a bundle id, so the per-bundle limit alone let
/// 600,000 channels over 600 made-up bundle ids take the mock from 42 to 140 MB. Past either,
/// a create gets CannotCreateChannelConfig, as at Apple's limit. A bundle left with no
/// channel is forgotten, so creating and deleting over ever new bundle ids leaves nothing.
///
/// Shared by the management and provider ports, hence the lock.
package final class ChannelStore: Sendable {
    /// Apple's documented maximum of channels per app and environment.
    package static let appleLimit = 10_000

    /// Channels in all, over every bundle id: ten apps at Apple's limit, about 16 MB (the
    /// issue measured about 160 bytes a channel).
    package static let defaultTotalLimit = 100_000

    package let limit: Int
    package let totalLimit: Int
    private struct State {
        var total = 0
        /// bundle id -> channel id -> message-storage-policy (0: no storage, 1: most recent).
        var channels: [String: [String: Int]] = [:]
        /// Creation order per bundle, so `list` answers in a stable order.
        var order: [String: [String]] = [:]
    }

    private let state = Locked(State())

    package init(limit: Int = ChannelStore.appleLimit, totalLimit: Int = ChannelStore.defaultTotalLimit) {
        self.limit = limit
        self.totalLimit = totalLimit
    }

    /// A new channel id (16 random bytes, base64 as Apple's), or nil at either limit.
    package func create(bundle: String, policy: Int) -> String? {
        state.withLock { state in
            guard state.total < totalLimit, (state.channels[bundle]?.count ?? 0) < limit else { return nil }
            var id: String
            repeat {
                id = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            } while state.channels[bundle]?[id] != nil
            state.channels[bundle, default: [:]][id] = policy
            state.order[bundle, default: []].append(id)
            state.total += 1
            return id
        }
    }

    /// The channel's message-storage-policy, or nil when this bundle has no such channel.
    package func policy(bundle: String, channel: String) -> Int? {
        state.withLock { $0.channels[bundle]?[channel] }
    }

    /// Removes the channel; false when it did not exist.
    package func delete(bundle: String, channel: String) -> Bool {
        state.withLock { state in
            guard state.channels[bundle]?.removeValue(forKey: channel) != nil else { return false }
            state.order[bundle]?.removeAll { $0 == channel }
            state.total -= 1
            if state.channels[bundle]?.isEmpty == true {
                state.channels[bundle] = nil
                state.order[bundle] = nil
            }
            return true
        }
    }

    /// Channels in all, over every bundle id.
    package var count: Int { state.withLock { $0.total } }

    /// Bundle ids that have at least one channel.
    package var bundleCount: Int { state.withLock { $0.channels.count } }

    package func list(bundle: String) -> [String] {
        state.withLock { $0.order[bundle] ?? [] }
    }

    /// Apple's channel ids are base64 of a few bytes; anything else is BadChannelId.
    package static func isWellFormed(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 256 && Data(base64Encoded: id) != nil
    }
}
