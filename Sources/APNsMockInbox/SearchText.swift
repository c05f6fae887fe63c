// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsMock
import CShims
import Foundation
import Synchronized

/// What `q` searches in one inbox entry: its token, channel, topic, reason, apns-id, sender,
/// push type and payload, case-folded, made the first time a search looks at the entry and then
/// kept with it. A search used to lower-case every kept payload on every request (1,000 kept
/// 6 KB entries and a 301-character `q`: over 30 s); now each entry is folded once, and a
/// search is one `memmem` per entry.
///
/// Made on first use rather than when the gateway stores the entry: the gateway hands entries
/// over on its own event loop thread, where a first version that formatted strings cost 5.5 µs
/// a request (docs/mock-gateway.md, "Mock inbox"), and most inboxes are never searched.
package final class SearchText: Sendable {
    private let folded = Locked<[UInt8]?>(nil)

    init() {}

    /// ASCII letters to lower case; every other byte as it is. The same fold on both sides, so
    /// any case of an ASCII word matches; other scripts match as written (the old search used
    /// Unicode lower-casing, which cost a String per field per request).
    package static func fold(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }

    /// The folded text of `event`, made once.
    func text(of event: InboxEvent) -> [UInt8] {
        folded.withLock { folded in
            if let folded { return folded }
            var text: [UInt8] = []
            text.reserveCapacity(event.payload.count + 256)
            let fields = [event.deviceToken, event.channel, event.topic, event.reason, event.apnsID, event.sender, event.pushType]
            for field in fields.compactMap({ $0 }) {
                text += field.utf8
                text.append(0x0A)
            }
            text += event.payload
            let made = Self.fold(text)
            folded = made
            return made
        }
    }
}

extension InboxStore.Entry {
    /// This entry's folded search text (`SearchText`).
    var searchText: [UInt8] { search.text(of: event) }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in these bytes (glibc's `memmem`: linear time, no copy).
    func containsBytes(_ needle: [UInt8]) -> Bool {
        withUnsafeBytes { haystack in
            needle.withUnsafeBytes { wanted in
                shim_contains_bytes(haystack.baseAddress, haystack.count, wanted.baseAddress, wanted.count) == 1
            }
        }
    }
}
