// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsTransport

extension APNsNotification {
    /// The provider API request this notification is sent as, without `authorization` (added
    /// per attempt) and with `apns-id` only when one was chosen: what `push --print-curl`
    /// shows.
    package func httpRequest() -> HTTP2Request {
        let request = self.request(apnsID: apnsID.map(MessageID.text) ?? "")
        return HTTP2Request(method: "POST", path: request.path, headers: request.headers.filter { $0.name != "apns-id" || apnsID != nil },
                            body: request.body)
    }
}
