// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation

/// What a broadcast to a channel ended with; the same words as `APNsSendResult`, so code that
/// reads device results reads these too.
public struct APNsBroadcastResult: Sendable, Equatable {
    /// The channel the broadcast was sent to.
    public let channel: APNsChannel.ID
    /// The `apns-id` APNs answered with, else the one sent (canonical lower-case text).
    public let apnsIDText: String
    /// Delivered, rejected, failed or cancelled, with the same promises as a notification's outcome.
    public let outcome: APNsSendResult.Outcome
    /// Times it was handed to a connection, retries included (0: it never reached one).
    public let attempts: Int
    /// An attempt was lost with its connection and the broadcast sent again: APNs may have
    /// sent it to the channel twice.
    public let possiblyDuplicated: Bool

    /// A result as `APNsBroadcastClient` makes it; public so that a test double of yours can return one.
    public init(channel: APNsChannel.ID, apnsIDText: String, outcome: APNsSendResult.Outcome, attempts: Int, possiblyDuplicated: Bool = false) {
        self.channel = channel
        self.apnsIDText = apnsIDText
        self.outcome = outcome
        self.attempts = attempts
        self.possiblyDuplicated = possiblyDuplicated
    }

    /// `apnsIDText` as a UUID, to compare with the one you sent.
    public var apnsID: UUID? { UUID(uuidString: apnsIDText) }
    /// APNs accepted the broadcast (status 200).
    public var isDelivered: Bool { outcome == .delivered }

    /// The reason of a rejection.
    public var reason: APNsReason? {
        if case .rejected(_, let reason, _) = outcome { return reason }
        return nil
    }

    /// APNs' HTTP status: 200 when delivered, the refusal's status when rejected, nil when no
    /// answer came.
    public var status: Int? {
        switch outcome {
        case .delivered: return 200
        case .rejected(let status, _, _): return status
        case .failed, .cancelled: return nil
        }
    }
}

/// A Live Activity broadcast (apns-protocol.md §8): the payload and the headers a broadcast
/// takes. No token and no topic: the channel and the bundle id say where it goes.
public struct APNsBroadcast: Sendable, Equatable {
    /// The JSON payload (at most 5,120 bytes): `{"aps": {"timestamp", "event", "content-state", ...}}`.
    public var payload: [UInt8]
    /// `apns-priority`: 10 counts against the activities' update budget, 5 does not (apns-protocol.md §8).
    public var priority: APNsPriority
    /// UNIX seconds after which APNs stops trying; a channel without storage takes only 0.
    public var expiration: UInt64?
    /// Sent as `apns-id`; a fresh UUID when nil.
    public var apnsID: UUID?

    /// A broadcast of `payload`, the JSON a Live Activity update carries, written by hand.
    /// Prefer `init(_:priority:expiration:apnsID:encoder:)`, which builds it from a typed
    /// update and checks it before anything is sent.
    public init(payload: [UInt8], priority: APNsPriority = .immediate, expiration: UInt64? = nil, apnsID: UUID? = nil) {
        self.payload = payload
        self.priority = priority
        self.expiration = expiration
        self.apnsID = apnsID
    }

    /// A broadcast of a typed Live Activity update or end, as device pushes take typed payloads:
    /// `APNsBroadcast(APNsLiveActivityPayload(event: .update, contentState: state))`. The
    /// priority, when nil, is the payload's own (5 for a quiet update, which does not count
    /// against the activities' budget of priority-10 updates; 10 with an alert or for an end).
    /// `encoder` encodes the app's content state. Throws `APNsPayloadError` when the update
    /// cannot be encoded, breaks one of Apple's ranges, or is over a broadcast's 5,120 bytes:
    /// such a broadcast is never built, so it is never sent.
    public init<ContentState>(_ update: APNsLiveActivityPayload<ContentState>, priority: APNsPriority? = nil, expiration: UInt64? = nil,
                              apnsID: UUID? = nil, encoder: JSONEncoder = JSONEncoder()) throws(APNsPayloadError) {
        self.init(payload: try update.encoded(with: encoder, limit: BroadcastRequest.payloadLimit),
                  priority: priority ?? update.defaultPriority ?? .immediate, expiration: expiration, apnsID: apnsID)
    }
}
