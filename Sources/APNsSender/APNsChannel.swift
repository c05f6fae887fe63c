// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A broadcast channel for Live Activities (apns-protocol.md §8): devices subscribe to it and
/// one broadcast reaches them all.
public struct APNsChannel: Sendable, Hashable {
    /// A channel's id: the base64 text APNs issued when it was created.
    public struct ID: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
    }

    /// What APNs keeps for devices that are offline when a broadcast is sent.
    public enum StoragePolicy: Int, Sendable, Hashable, Codable {
        /// Nothing: broadcasts to the channel must carry expiration 0.
        case noMessageStored = 0
        /// The most recent broadcast, delivered when the device comes back.
        case mostRecentMessageStored = 1
    }

    public let id: ID
    public let bundleID: String
    /// Nil only when a read's answer did not say (APNs always does).
    public let storagePolicy: StoragePolicy?
    /// The push type the channel carries, as APNs names it (`LiveActivity`).
    public let pushType: String?
    /// The `apns-request-id` APNs answered with (it echoes the one sent, else makes one).
    public let requestID: UUID?

    public init(id: ID, bundleID: String, storagePolicy: StoragePolicy?, pushType: String? = "LiveActivity", requestID: UUID? = nil) {
        self.id = id
        self.bundleID = bundleID
        self.storagePolicy = storagePolicy
        self.pushType = pushType
        self.requestID = requestID
    }
}
