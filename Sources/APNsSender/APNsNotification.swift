// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsTransport
import Foundation

/// One notification to send through the provider API.
public struct APNsNotification: Sendable {
    /// The device (or Live Activity) token the notification goes to: the request's path.
    public var token: APNsDeviceToken
    /// The JSON body, at most the push type's limit (apns-protocol.md §1); the typed initializers
    /// encode it for you.
    public var payload: [UInt8]
    /// `apns-topic`; required with token auth and multi-topic certificates.
    public var topic: String?
    /// `apns-push-type`; set by the typed initializers. Nil sends no header, which watchOS drops
    /// for background pushes, so set it for raw payloads.
    public var pushType: APNsPushType?
    /// `apns-priority`; nil: the push type's default (5 for background, APNs' 10 otherwise).
    public var priority: APNsPriority?
    /// UNIX seconds; 0 = deliver once, do not store.
    public var expiration: UInt64?
    /// `apns-collapse-id` (at most 64 bytes): a newer notification with the same id replaces the
    /// older one on the device.
    public var collapseID: String?
    /// `apns-id`; generated when nil, so every result can be traced.
    public var apnsID: UUID?

    /// A notification from raw JSON bytes, for a payload built elsewhere; prefer the typed
    /// `init(token:payload:topic:priority:expiration:collapseID:apnsID:encoder:)`, which sets the push type
    /// and checks the body before anything is sent.
    public init(token: APNsDeviceToken, payload: [UInt8], topic: String? = nil, pushType: APNsPushType? = nil, priority: APNsPriority? = nil,
                expiration: UInt64? = nil, collapseID: String? = nil, apnsID: UUID? = nil) {
        self.token = token
        self.payload = payload
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
    }

    /// The problem APNs would answer 400/413 for, found before sending: the sender never spends
    /// a request on what the gateway is certain to refuse.
    public func localProblem() -> String? {
        if let problem = PayloadCheck.validate(payload, pushType: pushType) { return problem }
        return problemBesidesPayload
    }

    /// The part of `localProblem()` that is not the payload's (`CheckedPayloadMemo` knows the
    /// payload is fine).
    var problemBesidesPayload: String? {
        if let collapseID, collapseID.utf8.count > 64 { return "the collapse id is longer than 64 bytes" }
        return nil
    }

    /// Path and headers for the provider API (authorization is added per attempt).
    func request(apnsID: String) -> HTTP2Request {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(6)  // every header below: one allocation, not one per growth
        headers.append(("apns-id", apnsID))
        headers.append(contentsOf: sharedHeaderFields())
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        return HTTP2Request(path: Hex.encode(token.bytes, after: RequestValidator.devicePathPrefix), headers: headers, body: payload)
    }

    /// What the fields of `sharedHeaderBlock()` depend on: notifications with equal keys
    /// share one block (a batch's usually all do).
    struct SharedHeaderKey: Equatable {
        var topic: String?
        var pushType: APNsPushType?
        var priority: APNsPriority?
        var expiration: UInt64?

        /// `notification.sharedHeaderKey == self`, without making the key (a copy of each of
        /// its Strings, and their release).
        func matches(_ notification: APNsNotification) -> Bool {
            topic == notification.topic && pushType == notification.pushType && priority == notification.priority
                && expiration == notification.expiration
        }
    }

    var sharedHeaderKey: SharedHeaderKey {
        SharedHeaderKey(topic: topic, pushType: pushType, priority: priority, expiration: expiration)
    }

    /// `apns-topic`, `apns-push-type`, `apns-priority` and `apns-expiration`, encoded once for
    /// every notification with the same `sharedHeaderKey`.
    func sharedHeaderBlock() -> HTTP2HeaderBlock { HTTP2HeaderBlock(sharedHeaderFields()) }

    /// The header fields `sharedHeaderKey` decides, in the order they are sent.
    private func sharedHeaderFields() -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        if let topic { fields.append(("apns-topic", topic)) }
        if let pushType { fields.append(("apns-push-type", pushType.rawValue)) }
        if let priority { fields.append(("apns-priority", String(priority.rawValue))) }
        if let expiration { fields.append(("apns-expiration", String(expiration))) }
        return fields
    }

    /// `request(apnsID:)` with the shared fields in `shared` (made by `sharedHeaderBlock()`
    /// for this notification's key): only what is the notification's own is copied per request.
    func request(apnsID: String, shared: HTTP2HeaderBlock) -> HTTP2Request {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(collapseID == nil ? 1 : 2)
        headers.append(("apns-id", apnsID))
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        return HTTP2Request(path: Hex.encode(token.bytes, after: RequestValidator.devicePathPrefix), headers: headers, sharedHeaders: shared,
                            body: payload)
    }

    static func newID() -> String { MessageID.shared.next() }
}
