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
        if let collapseID, collapseID.utf8.count > 64 { return "the collapse id is longer than 64 bytes" }
        return nil
    }

    /// Path and headers for the provider API (authorization is added per attempt).
    func request(apnsID: String) -> HTTP2Request {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(6)  // every header below: one allocation, not one per growth
        headers.append(("apns-id", apnsID))
        if let topic { headers.append(("apns-topic", topic)) }
        if let pushType { headers.append(("apns-push-type", pushType.rawValue)) }
        if let priority { headers.append(("apns-priority", String(priority.rawValue))) }
        if let expiration { headers.append(("apns-expiration", String(expiration))) }
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        return HTTP2Request(path: Hex.encode(token.bytes, after: RequestValidator.devicePathPrefix), headers: headers, body: payload)
    }

    static func newID() -> String { MessageID.shared.next() }
}
