// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// A provider API request as the server sees it, after the checks that need no credentials.
package struct ValidatedRequest: Sendable, Equatable {
    package let token: APNsDeviceToken
    /// `apns-id` as sent (nil: the server generates one).
    package let apnsID: String?
    package let topic: String?
    package let pushType: APNsPushType?
    package let priority: APNsPriority
    package let expiration: UInt64?
    package let collapseID: String?
    package let authorization: String?
    package let payloadSize: Int
}

/// The request rules of APNs' provider API (apns-protocol.md §1), in one place, so that the mock
/// gateway enforces exactly what the sender pre-checks. Rules that need the connection's
/// credentials (topics of the client certificate, provider tokens) are the gateway's.
package enum RequestValidator {
    package typealias Header = (name: String, value: String)

    package static let pathPrefix = devicePathPrefix.description
    /// `pathPrefix` for code that writes a path straight into a buffer (`Hex.encode(_:after:)`).
    package static let devicePathPrefix: StaticString = "/3/device/"

    /// The mock gateway runs this for every request, 100,000 times a second, so it decodes the
    /// token from the path's bytes and reads the headers into fixed slots: no dictionary, no
    /// copy of the token text.
    package static func validate(method: String, path: String, headers: [Header], body: [UInt8]) -> Result<ValidatedRequest, APNsReasonError> {
        guard method == "POST" else { return .failure(.init(.methodNotAllowed)) }
        guard path.hasPrefix(pathPrefix) else { return .failure(.init(.badPath)) }
        let tokenText = path.utf8.dropFirst(pathPrefix.utf8.count)
        guard !tokenText.isEmpty else { return .failure(.init(.missingDeviceToken)) }
        guard let token = APNsDeviceToken(hex: tokenText) else { return .failure(.init(.badDeviceToken)) }
        // The headers APNs reads, each allowed at most once.
        var fields = Fields()
        for header in headers {
            // Lengths first: a String comparison that fails is an out-of-line call, and
            // most names (user-agent, content-length) are none of these.
            let name = header.name
            let fresh: Bool
            switch name.utf8.count {
            case 13 where name == "authorization": fresh = Self.fill(&fields.authorization, header.value)
            case 7 where name == "apns-id": fresh = Self.fill(&fields.apnsID, header.value)
            case 15 where name == "apns-expiration": fresh = Self.fill(&fields.expiration, header.value)
            case 13 where name == "apns-priority": fresh = Self.fill(&fields.priority, header.value)
            case 10 where name == "apns-topic": fresh = Self.fill(&fields.topic, header.value)
            case 14 where name == "apns-push-type": fresh = Self.fill(&fields.pushType, header.value)
            case 16 where name == "apns-collapse-id": fresh = Self.fill(&fields.collapseID, header.value)
            default: continue
            }
            guard fresh else { return .failure(.init(.duplicateHeaders)) }
        }
        if let id = fields.apnsID, !isCanonicalUUID(id) { return .failure(.init(.badMessageId)) }
        var expiration: UInt64?
        if let text = fields.expiration {
            guard let value = UInt64(text) else { return .failure(.init(.badExpirationDate)) }
            expiration = value
        }
        var priority = APNsPriority.immediate
        if let text = fields.priority {
            guard let value = Int(text), let parsed = APNsPriority(rawValue: value) else { return .failure(.init(.badPriority)) }
            priority = parsed
        }
        var pushType: APNsPushType?
        if let text = fields.pushType {
            guard let parsed = APNsPushType(rawValue: text) else { return .failure(.init(.invalidPushType)) }
            pushType = parsed
        }
        if let collapse = fields.collapseID, collapse.utf8.count > 64 { return .failure(.init(.badCollapseId)) }
        guard !body.isEmpty else { return .failure(.init(.payloadEmpty)) }
        if body.count > (pushType ?? .alert).payloadLimit { return .failure(.init(.payloadTooLarge)) }
        return .success(ValidatedRequest(token: token, apnsID: fields.apnsID, topic: fields.topic, pushType: pushType,
                                         priority: priority, expiration: expiration, collapseID: fields.collapseID,
                                         authorization: fields.authorization, payloadSize: body.count))
    }

    /// The request's headers that APNs reads, as sent.
    private struct Fields {
        var authorization, apnsID, expiration, priority, topic, pushType, collapseID: String?
    }

    /// Stores `value` in an empty slot; false when the header was already there.
    private static func fill(_ slot: inout String?, _ value: String) -> Bool {
        guard slot == nil else { return false }
        slot = value
        return true
    }

    /// 8-4-4-4-12 hex digits with hyphens (APNs documents lower case; upper case hex is
    /// accepted as the same UUID).
    /// Reads the bytes in place (a native string's UTF-8 is contiguous): the mock checks every
    /// request's apns-id, and walking the UTF8View with an iterator cost 4% of its CPU.
    package static func isCanonicalUUID(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable(isCanonicalUUID(utf8:))
            ?? Array(text.utf8).withUnsafeBufferPointer(isCanonicalUUID(utf8:))
    }

    static func isCanonicalUUID(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 36 else { return false }
        for index in 0..<36 {
            let byte = bytes[index]
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !isHexDigit(byte) {
                return false
            }
        }
        return true
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}

/// A rejection with APNs' reason.
package struct APNsReasonError: Error, Sendable, Equatable {
    package let reason: APNsReason
    package init(_ reason: APNsReason) { self.reason = reason }
}
