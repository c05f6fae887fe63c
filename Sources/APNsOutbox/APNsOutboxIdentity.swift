// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import OpenSSLCore

/// The identifiers a notification keeps for every attempt, derived from its queue entry, not
/// drawn at random: a notification sent again after a crash carries the same `apns-id` (so
/// Apple's and the app's logs tie both attempts to one row) and, unless the app opted out, the
/// same `apns-collapse-id` (so the device shows the second copy in place of the first).
///
/// Any consumer that has a stable key per message (an outbox row's id, a Kafka topic,
/// partition and offset, an SQS message's deduplication id) gets the same guarantee from
/// `apnsID(forKey:)` and `collapseID(forKey:)` (docs/outbox.md, "Your own queue").
public enum APNsOutboxIdentity {
    /// The namespace of the outbox's version-5 UUIDs (RFC 9562 §5.5); fixed forever, so that an
    /// app can compute a row's `apns-id` itself before any worker saw the row.
    public static let namespace = UUID(uuidString: "6f1b8c2e-4d0a-5e7b-9c3f-a1b2c3d4e5f6")!

    /// The version-5 UUID of `key` in `namespace`: SHA-1 over the namespace's 16 bytes and the
    /// key's UTF-8, version and variant bits set.
    public static func apnsID(forKey key: String, namespace: UUID = namespace) -> UUID {
        var input = withUnsafeBytes(of: namespace.uuid) { Array($0) }
        input.append(contentsOf: Array(key.utf8))
        var bytes = Array(MessageDigest.sha1(input).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// The `apns-collapse-id` a message gets when its producer set none: its `apns-id` as
    /// lower-case text (36 bytes; APNs takes up to 64).
    public static func collapseID(forKey key: String, namespace: UUID = namespace) -> String {
        apnsID(forKey: key, namespace: namespace).uuidString.lowercased()
    }

    /// The key of an outbox row: `apns_outbox:<id>`. The row's `apns-id` is
    /// `apnsID(forKey: rowKey(id))`, which a producer may compute in advance.
    public static func rowKey(_ id: Int64) -> String { "apns_outbox:\(id)" }
}
