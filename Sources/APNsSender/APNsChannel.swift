// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A broadcast channel for Live Activities (apns-protocol.md §8): devices subscribe to it and
/// one broadcast reaches them all.
public struct APNsChannel: Sendable, Hashable {
    /// A channel's id: the base64 text APNs issued when it was created.
    public struct ID: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The base64 id text, as APNs sent it and `apns-channel-id` carries it.
        public let rawValue: String
        /// An id as APNs issued it or an app reported it; not checked here, APNs answers BadChannelId.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The id as stored or received from an app, without the `rawValue:` label.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// The id as APNs issued it.
        public var description: String { rawValue }
    }

    /// What APNs keeps for devices that are offline when a broadcast is sent.
    public enum StoragePolicy: Int, Sendable, Hashable, Codable {
        /// Nothing: broadcasts to the channel must carry expiration 0.
        case noMessageStored = 0
        /// The most recent broadcast, delivered when the device comes back.
        case mostRecentMessageStored = 1
    }

    /// The id apps subscribe to (`input-push-channel`) and broadcasts are sent to.
    public let id: ID
    /// The app the channel belongs to; broadcasts to it are sent with this bundle id.
    public let bundleID: String
    /// Nil only when a read's answer did not say (APNs always does).
    public let storagePolicy: StoragePolicy?
    /// The push type the channel carries, as APNs names it (`LiveActivity`).
    public let pushType: String?
    /// The `apns-request-id` APNs answered with (it echoes the one sent, else makes one).
    public let requestID: UUID?

    /// A channel as APNs describes it; public so that a test double of yours can return one.
    public init(id: ID, bundleID: String, storagePolicy: StoragePolicy?, pushType: String? = "LiveActivity", requestID: UUID? = nil) {
        self.id = id
        self.bundleID = bundleID
        self.storagePolicy = storagePolicy
        self.pushType = pushType
        self.requestID = requestID
    }
}
