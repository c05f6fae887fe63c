// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import Foundation

extension APNsClient {
    /// Builds the notification for `payload` and sends it to `token`, the topic from the
    /// client's bundle id and the payload's push type:
    /// `let result = try await client.send(APNsWidgetsPayload(), to: token)`.
    /// Throws `APNsPayloadError` when the payload cannot become a notification (nothing is
    /// sent then); every outcome of the send itself is in the result, as with `send(_:)`. For
    /// a topic, priority, expiration, collapse id or apns-id of your own, build an
    /// `APNsNotification(token:payload:...)` and send that.
    public func send(_ payload: some APNsPayload, to token: APNsDeviceToken, encoder: JSONEncoder = JSONEncoder()) async throws(APNsPayloadError) -> APNsSendResult {
        await send(try APNsNotification(token: token, payload: payload, encoder: encoder))
    }
}
