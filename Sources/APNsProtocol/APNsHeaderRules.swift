/// The provider API's header names as HTTP/2 header-compression rules
/// (docs/apns-protocol.md §1, "Header compression"). The transport knows no APNs: the sender
/// and the mock gateway hand these to it through `HTTP2Settings`.
package enum APNsHeaderRules {
    /// Request headers a provider sends (§1's table): a server keeps each name as one String
    /// and reuses a value repeated from the previous request, such as the token and topic.
    package static let requestHeaders = [
        "authorization", "apns-id", "apns-expiration", "apns-priority", "apns-topic", "apns-push-type", "apns-collapse-id",
    ]
    /// What a provider's requests carry anew every time: the path (it holds the device token)
    /// and the notification's id. Sent never indexed, they do not push the topic, push type and
    /// priority out of both peers' HPACK tables.
    package static let neverIndexedRequestHeaders = [":path", "apns-id"]
    /// What a gateway's answers carry anew every time: the notification's ids.
    package static let neverIndexedResponseHeaders = ["apns-id", "apns-unique-id"]
}
