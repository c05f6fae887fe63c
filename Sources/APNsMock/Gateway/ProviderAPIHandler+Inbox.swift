// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsTransport
import Foundation
import Synchronized

extension ProviderAPIHandler {
    /// Hands the inbox one event for an answered provider API or channel management request.
    /// Only called when a sink is attached; the work here (header look-ups, the reason from
    /// the answer's body) is what the inbox costs the event loop per request.
    func report(_ request: HTTP2Request, _ response: HTTP2Response, _ verdict: DeviceVerdict?, lint: Bool,
                management: Bool, to inbox: any InboxSink) {
        let protocolName = management ? "channels" : (request.path.hasPrefix(BroadcastAPI.broadcastPrefix) ? "broadcast" : "h2")
        let accepted = response.status < 300 && response.afterward != .dropWithoutResponse
        // Only references to strings the request and answer already hold: no lower-casing, no
        // formatting here (the JSON is made on the inbox's side, when someone asks).
        var event = InboxEvent(protocolName: protocolName, status: response.status, accepted: accepted,
                               reason: accepted ? nil : Self.reason(in: response), payload: request.body, connection: request.connectionID)
        event.path = request.path
        var sentID: String?
        for header in request.allHeaders {
            switch header.name {
            case "apns-id": sentID = header.value
            case "apns-topic": event.topic = header.value
            case "apns-channel-id": event.channel = header.value
            case "apns-push-type": event.pushType = header.value
            case "apns-priority": event.priority = header.value
            case "apns-collapse-id": event.collapseID = header.value
            case "apns-expiration": event.expiration = header.value
            default: break
            }
        }
        for header in response.allHeaders {
            if header.name == "apns-id" { event.apnsID = header.value } else if header.name == "apns-unique-id" { event.uniqueID = header.value }
        }
        // A client's apns-id that was not echoed (BadMessageId: not a UUID) is shown as sent,
        // not as the id the mock made up for the answer: it is what the client has to fix.
        if let sentID, sentID.lowercased() != event.apnsID?.lowercased() { event.apnsID = sentID }
        event.dropped = response.afterward == .dropWithoutResponse
        event.device = verdict
        event.lintDeferred = lint && verdict == nil && accepted && protocolName == "h2"
        let key = management ? -request.connectionID : request.connectionID
        books.withLock { books in
            guard let state = books.connections[key] else { return }
            if let info = state.certificateInfo {
                event.identity = info.commonName ?? info.subject
                if event.topic == nil, protocolName == "h2" { event.topic = info.bundleID }
            } else if let claims = state.token?.claims {
                event.providerKey = (claims.keyID, claims.teamID)
                event.tokenQuirks = claims.quirks
            }
        }
        inbox.gatewayAnswered(event)
    }

    /// The reason in a rejection's `{"reason": ...}` body; for a dropped request, what happened.
    static func reason(in response: HTTP2Response) -> String? {
        if response.afterward == .dropWithoutResponse { return "Dropped (--drop-after fault): no answer" }
        guard !response.body.isEmpty,
              let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else { return nil }
        return object["reason"] as? String
    }
}
