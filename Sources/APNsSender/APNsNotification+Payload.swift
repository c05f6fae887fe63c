// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation

extension APNsNotification {
    /// A notification whose body is a typed payload (`APNsAlertPayload`,
    /// `APNsBackgroundPayload`, `APNsLiveActivityPayload`, ...): the payload sets the push
    /// type, and the priority and expiration its push type implies unless given here. The
    /// topic, when nil, is filled in at send time from the client's bundle id and the push
    /// type's suffix (`withDefaults`).
    ///
    /// `encoder` encodes the app's own values (custom keys, VoIP content, a Live Activity's
    /// content state and attributes); the default `JSONEncoder()` writes dates the way
    /// ActivityKit reads them (`APNsLiveActivityPayload`).
    ///
    /// Throws `APNsPayloadError` when the payload cannot be encoded, breaks one of Apple's
    /// ranges, or is larger than the push type's limit: such a notification is never built,
    /// so it is never sent.
    public init(token: APNsDeviceToken, payload: some APNsPayload, topic: String? = nil, priority: APNsPriority? = nil,
                expiration: UInt64? = nil, collapseID: String? = nil, apnsID: UUID? = nil, encoder: JSONEncoder = JSONEncoder()) throws(APNsPayloadError) {
        self.init(token: token, payload: try payload.encoded(with: encoder), topic: topic, pushType: payload.pushType,
                  priority: priority ?? payload.defaultPriority, expiration: expiration ?? payload.defaultExpiration,
                  collapseID: collapseID, apnsID: apnsID)
    }

    /// An alert push with only its text: `APNsNotification(token: token, alert: APNsAlert(title: "Hello"))`.
    /// Use `APNsAlertPayload` for the rest of the `aps` dictionary (badge, sound, ...).
    public init(token: APNsDeviceToken, alert: APNsAlert, topic: String? = nil) throws(APNsPayloadError) {
        try self.init(token: token, payload: APNsAlertPayload(alert: alert), topic: topic)
    }
}
