// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import Foundation

/// One request the gateway answered, as the inbox shows it: accepted or not, on any of its
/// ports (provider API, broadcasts, legacy frames, feedback reads).
///
/// Made only when a sink is attached (`ProviderAPIHandler.Settings.inbox`): a gateway without
/// one pays a nil check per request and nothing else.
package struct InboxEvent: Sendable {
    /// Where the request came in: "h2" (provider API), "broadcast", "channels" (channel
    /// management), "legacy" (binary gateway frame), "feedback" (a feedback service read).
    package var protocolName: String
    package var time: Date
    /// The HTTP status for h2, broadcasts and channel calls; the legacy error-response status
    /// (0 for a frame accepted, which gets no reply); 0 for a feedback read.
    package var status: Int
    package var accepted: Bool
    /// Apple's reason (`{"reason": ...}`), or the legacy status name; nil when accepted.
    package var reason: String?
    /// Set for legacy frames; for the provider API see `path` and `deviceToken`.
    package var token: String?
    /// The provider API request's path (`/3/device/<token>`, ...).
    package var path: String?
    package var channel: String?
    package var topic: String?
    package var pushType: String?
    package var priority: String?
    package var collapseID: String?
    package var expiration: String?
    package var apnsID: String?
    package var uniqueID: String?
    /// Who sent it: the certificate's common name (see `sender` for token auth).
    package var identity: String?
    /// Token auth: the provider token's key id and team id.
    package var providerKey: (keyID: String, teamID: String)?
    /// Token auth: the shapes of the provider token APNs serves though its documentation does
    /// not show them (apns-protocol.md §1), shown as marks.
    package var tokenQuirks: [ProviderTokenQuirk] = []
    /// The body as received (the provider API keeps at most 5,121 bytes of it, a legacy frame
    /// at most its item's length).
    package var payload: [UInt8]
    package var payloadBytes: Int
    package var connection: Int
    /// The legacy frame's identifier (enhanced and framed formats).
    package var identifier: UInt32?
    /// Tuples handed out by a feedback read.
    package var feedbackTuples: Int?
    /// The mock answered nothing (a `--drop-after` fault): the client saw the connection drop.
    package var dropped = false
    /// An accepted provider API notification's lint verdict: what a device would do with it
    /// (docs/lint.md); nil for everything else.
    package var device: DeviceVerdict?
    /// Accepted, to be linted when the inbox shows it (`deviceVerdict`): the gateway lints on
    /// its event loop only what its record needs, or what needs its state (Live Activities).
    package var lintDeferred = false

    /// The device token: a legacy frame's, or the one in a provider API path, as sent (hex,
    /// not checked: a malformed one is shown too). Worked out when read, not on the gateway.
    package var deviceToken: String? {
        if let token { return token }
        guard let path, path.hasPrefix("/3/device/") else { return nil }
        let token = path.dropFirst("/3/device/".count)
        return token.isEmpty ? nil : String(token)
    }

    /// The certificate's name, or "key KEYID (team TEAMID)".
    package var sender: String? {
        identity ?? providerKey.map { "key \($0.keyID) (team \($0.teamID))" }
    }

    package init(protocolName: String, time: Date = Date(), status: Int, accepted: Bool, reason: String? = nil, token: String? = nil,
                topic: String? = nil, payload: [UInt8] = [], connection: Int) {
        self.protocolName = protocolName
        self.time = time
        self.status = status
        self.accepted = accepted
        self.reason = reason
        self.token = token
        self.topic = topic
        self.payload = payload
        self.payloadBytes = payload.count
        self.connection = connection
    }
}

/// Receives an `InboxEvent` per answered request. Called on the gateway's event loop thread
/// (provider API) or a connection's task (legacy, feedback): it must return at once, without
/// blocking or waiting for a consumer.
package protocol InboxSink: AnyObject, Sendable {
    func gatewayAnswered(_ event: InboxEvent)
}
