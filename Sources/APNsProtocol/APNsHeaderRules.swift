// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The provider API's header names as HTTP/2 header-compression rules
/// (docs/apns-protocol.md §1, "Header compression"). The transport knows no APNs: the sender
/// and the mock gateway hand these to it through `HTTP2Settings`.
package enum APNsHeaderRules {
    /// What a provider's requests carry anew every time: the path (it holds the device token)
    /// and the notification's id. Sent never indexed, they do not push the topic, push type and
    /// priority out of both peers' HPACK tables.
    package static let neverIndexedRequestHeaders = [":path", "apns-id"]
    /// What a gateway's answers carry anew every time: the notification's ids.
    package static let neverIndexedResponseHeaders = ["apns-id", "apns-unique-id"]
    /// The answer headers a sender reads (§1, §8): the sandbox's `apns-unique-id`, a 429's
    /// `retry-after`, a new channel's `apns-channel-id`, the channel API's `apns-request-id`.
    /// The `apns-id` an answer echoes is the one the sender chose and already holds, so a
    /// sender's connection stores none of the others (a String each, on every answer).
    package static let responseHeadersSendersRead = ["apns-unique-id", "retry-after", "apns-channel-id", "apns-request-id"]
}
