// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// A provider API request as the server sees it, after the checks that need no credentials.
package struct ValidatedRequest: Sendable, Equatable {
    package let token: APNsDeviceToken
    /// `apns-id` in lower case, as APNs echoes it (nil: the server generates one).
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

    /// The rules over headers given as Strings: for requests built in code (tests, the fuzz
    /// pass). The same checks as the byte form the mock gateway uses, which this calls.
    package static func validate(method: String, path: String, headers: [Header], body: [UInt8]) -> Result<ValidatedRequest, APNsReasonError> {
        var bytes: [UInt8] = []
        var slots = HeaderSlots()
        for header in headers {
            let start = bytes.count
            bytes.append(contentsOf: header.value.utf8)
            Array(header.name.utf8).withUnsafeBufferPointer { slots.add(name: $0, value: start..<bytes.count) }
        }
        var strings = HeaderStrings()
        return bytes.withUnsafeBufferPointer { validate(method: method, path: path, bytes: $0, slots: slots, body: body, strings: &strings) }
    }

    /// The mock gateway runs this for every request, 100,000 times a second, so it reads the
    /// headers as bytes (`slots`: where the values APNs reads sit in `bytes`), decodes the
    /// token from the path's bytes, and makes a String only of the values it hands on
    /// (`strings` keeps the connection's previous ones, which a client usually repeats).
    package static func validate(method: String, path: String, bytes: UnsafeBufferPointer<UInt8>, slots: HeaderSlots, body: [UInt8],
                                 strings: inout HeaderStrings) -> Result<ValidatedRequest, APNsReasonError> {
        guard method == "POST" else { return .failure(.init(.methodNotAllowed)) }
        let decoded = path.utf8.withContiguousStorageIfAvailable(deviceToken(path:)) ?? Array(path.utf8).withUnsafeBufferPointer(deviceToken(path:))
        let token: APNsDeviceToken
        switch decoded {
        case .failure(let error): return .failure(error)
        case .success(let value): token = value
        }
        // The headers APNs reads, each allowed at most once.
        guard !slots.duplicate else { return .failure(.init(.duplicateHeaders)) }
        func value(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[range]) }
        if let id = slots.apnsID, !isCanonicalUUID(utf8: value(id)) { return .failure(.init(.badMessageId)) }
        var expiration: UInt64?
        if let range = slots.expiration {
            guard let parsed = UInt64(String(decoding: value(range), as: UTF8.self)) else { return .failure(.init(.badExpirationDate)) }
            expiration = parsed
        }
        var priority = APNsPriority.immediate
        if let range = slots.priority {
            guard let number = Int(String(decoding: value(range), as: UTF8.self)), let parsed = APNsPriority(rawValue: number) else {
                return .failure(.init(.badPriority))
            }
            priority = parsed
        }
        var pushType: APNsPushType?
        if let range = slots.pushType {
            guard let parsed = APNsPushType(rawValue: String(decoding: value(range), as: UTF8.self)) else { return .failure(.init(.invalidPushType)) }
            pushType = parsed
        }
        // Its length as the String a client's bytes make (invalid UTF-8 repaired), as before.
        let collapseID = slots.collapseID.map { strings.string(.collapseID, value($0)) }
        if let collapse = collapseID, collapse.utf8.count > 64 { return .failure(.init(.badCollapseId)) }
        guard !body.isEmpty else { return .failure(.init(.payloadEmpty)) }
        if body.count > (pushType ?? .alert).payloadLimit { return .failure(.init(.payloadTooLarge)) }
        return .success(ValidatedRequest(token: token, apnsID: slots.apnsID.map { strings.string(.apnsID, value($0)) },
                                         topic: slots.topic.map { strings.string(.topic, value($0)) }, pushType: pushType,
                                         priority: priority, expiration: expiration, collapseID: collapseID,
                                         authorization: slots.authorization.map { strings.string(.authorization, value($0)) },
                                         payloadSize: body.count))
    }

    /// The device token of a provider API path: its reason when the path is not
    /// `/3/device/<hex>`.
    private static func deviceToken(path: UnsafeBufferPointer<UInt8>) -> Result<APNsDeviceToken, APNsReasonError> {
        let prefixLength = devicePathPrefix.utf8CodeUnitCount
        guard path.starts(withBytesOf: devicePathPrefix) else { return .failure(.init(.badPath)) }
        guard path.count > prefixLength else { return .failure(.init(.missingDeviceToken)) }
        guard let token = APNsDeviceToken(hexDigits: UnsafeBufferPointer(rebasing: path[prefixLength...])) else {
            return .failure(.init(.badDeviceToken))
        }
        return .success(token)
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
