// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RequestValidator {
    /// The request headers APNs reads (apns-protocol.md §1), found by name while the caller
    /// walks a request's fields: where each value sits in the caller's byte buffer. A second
    /// field of the same name marks the request `duplicate` (DuplicateHeaders).
    ///
    /// Names are compared as bytes, length first, so a field APNs does not read (user-agent,
    /// content-length) costs one switch; HTTP/2 names are lower case, and so are these.
    package struct HeaderSlots: Sendable {
        package private(set) var authorization, apnsID, expiration, priority, topic, pushType, collapseID: Range<Int>?
        package private(set) var duplicate = false

        package init() {}

        /// Notes field `name` whose value sits at `value` in the caller's bytes.
        package mutating func add(name: UnsafeBufferPointer<UInt8>, value: Range<Int>) {
            let fresh: Bool
            switch name.count {
            case 7 where name.starts(withBytesOf: "apns-id"): fresh = Self.fill(&apnsID, value)
            case 10 where name.starts(withBytesOf: "apns-topic"): fresh = Self.fill(&topic, value)
            case 13 where name.starts(withBytesOf: "authorization"): fresh = Self.fill(&authorization, value)
            case 13 where name.starts(withBytesOf: "apns-priority"): fresh = Self.fill(&priority, value)
            case 14 where name.starts(withBytesOf: "apns-push-type"): fresh = Self.fill(&pushType, value)
            case 15 where name.starts(withBytesOf: "apns-expiration"): fresh = Self.fill(&expiration, value)
            case 16 where name.starts(withBytesOf: "apns-collapse-id"): fresh = Self.fill(&collapseID, value)
            default: return
            }
            if !fresh { duplicate = true }
        }

        /// Stores `value` in an empty slot; false when the header was already there.
        private static func fill(_ slot: inout Range<Int>?, _ value: Range<Int>) -> Bool {
            guard slot == nil else { return false }
            slot = value
            return true
        }
    }

    /// A connection's Strings of the header values a request hands on, kept between its
    /// requests: a client sends the same credential and topic on every request (a bearer
    /// token alone is some 200 bytes), so a value whose bytes equal the previous one's is
    /// that String again instead of a new copy.
    /// `apns-id` values are made lower case (APNs echoes the id so), which for a canonical
    /// UUID is ASCII letters only.
    package struct HeaderStrings: Sendable {
        package enum Kind: Int, Sendable { case authorization, apnsID, topic, collapseID }
        private var last: (String?, String?, String?, String?) = (nil, nil, nil, nil)

        package init() {}

        /// `bytes` as a String (invalid UTF-8 repaired, as `String(decoding:as:)` does): the
        /// previous one of this kind when the bytes are the same.
        package mutating func string(_ kind: Kind, _ bytes: UnsafeBufferPointer<UInt8>) -> String {
            switch kind {
            case .authorization: Self.reuse(&last.0, bytes)
            case .apnsID: Self.reuse(&last.1, bytes, lowercasing: true)
            case .topic: Self.reuse(&last.2, bytes)
            case .collapseID: Self.reuse(&last.3, bytes)
            }
        }

        private static func reuse(_ slot: inout String?, _ bytes: UnsafeBufferPointer<UInt8>, lowercasing: Bool = false) -> String {
            if let previous = slot, previous.utf8.withContiguousStorageIfAvailable({ bytes.starts(withBytesOf: $0) && $0.count == bytes.count }) == true {
                return previous
            }
            let text = lowercasing && bytes.contains(where: { $0 &- UInt8(ascii: "A") < 26 })
                ? String(unsafeUninitializedCapacity: bytes.count) { out in
                    for index in bytes.indices { out[index] = bytes[index] &- UInt8(ascii: "A") < 26 ? bytes[index] | 0x20 : bytes[index] }
                    return bytes.count
                }
                : String(decoding: bytes, as: UTF8.self)
            slot = text
            return text
        }
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// Whether these bytes begin with `prefix`'s: one `memcmp`.
    func starts(withBytesOf prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        count >= prefix.count && (prefix.isEmpty || memcmp(baseAddress!, prefix.baseAddress!, prefix.count) == 0)
    }

    /// The same against a literal.
    func starts(withBytesOf prefix: StaticString) -> Bool {
        prefix.withUTF8Buffer { starts(withBytesOf: $0) }
    }
}
