// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsTransport

/// The APNs header rules (`APNsHeaderRules`) applied to the transport's settings, by the
/// roles that speak the provider API: the sender and `verify` as clients, the mock gateway as
/// server. The transport itself knows no APNs header.
extension HTTP2Settings {
    /// A provider's connection: its per-request headers (path, apns-id) never indexed, and
    /// only the answer headers a sender reads stored.
    package mutating func applyAPNsClientRules() {
        neverIndexedHeaders = APNsHeaderRules.neverIndexedRequestHeaders
        keptResponseHeaders = APNsHeaderRules.responseHeadersSendersRead
    }

    /// A gateway's connection: its per-answer ids never indexed.
    package mutating func applyAPNsServerRules() {
        neverIndexedHeaders = APNsHeaderRules.neverIndexedResponseHeaders
    }

    /// The settings a provider connection starts from: `maxConcurrentStreams` streams offered
    /// to the gateway (which opens none), the APNs client rules applied. `keepingEveryAnswerHeader`:
    /// for `verify`, which reports the answer as it came (its `apns-id` too).
    package static func apnsClient(maxConcurrentStreams: UInt32 = 100, keepingEveryAnswerHeader: Bool = false) -> HTTP2Settings {
        var settings = HTTP2Settings(maxConcurrentStreams: maxConcurrentStreams)
        settings.applyAPNsClientRules()
        if keepingEveryAnswerHeader { settings.keptResponseHeaders = nil }
        return settings
    }
}
