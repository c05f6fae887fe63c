import APNsCredentials
import APNsProtocol
import APNsTransport
import Foundation

extension ProviderAPIHandler {
    /// Hands the inbox one event for an answered provider API or channel management request.
    /// Only called when a sink is attached; the work here (header look-ups, the reason from
    /// the answer's body) is what the inbox costs the event loop per request.
    func report(_ request: HTTP2Request, _ response: HTTP2Response, management: Bool, to inbox: any InboxSink) {
        let protocolName = management ? "channels" : (request.path.hasPrefix(BroadcastAPI.broadcastPrefix) ? "broadcast" : "h2")
        let accepted = response.status < 300 && response.afterward != .dropWithoutResponse
        var event = InboxEvent(protocolName: protocolName, status: response.status, accepted: accepted,
                               reason: accepted ? nil : Self.reason(in: response), token: Self.deviceToken(in: request.path),
                               topic: request.header("apns-topic"), payload: request.body, connection: request.connectionID)
        event.channel = request.header("apns-channel-id")
        event.pushType = request.header("apns-push-type")
        event.priority = request.header("apns-priority")
        event.collapseID = request.header("apns-collapse-id")
        event.expiration = request.header("apns-expiration")
        event.apnsID = response.header("apns-id")
        event.uniqueID = response.header("apns-unique-id")
        event.dropped = response.afterward == .dropWithoutResponse
        if request.bodyOverLimit { event.payloadBytes = request.body.count }
        let identity = lock.withLock { () -> (String?, String?) in
            let state = connections[management ? -request.connectionID : request.connectionID]
            if let info = state?.certificateInfo { return (info.commonName ?? info.subject, info.bundleID) }
            return (state?.token.map { "key \($0.claims.keyID) (team \($0.claims.teamID))" }, nil)
        }
        event.identity = identity.0
        if event.topic == nil, protocolName == "h2" { event.topic = identity.1 }
        inbox.gatewayAnswered(event)
    }

    /// `/3/device/<token>`'s token as sent (hex, not checked: a malformed one is shown too).
    static func deviceToken(in path: String) -> String? {
        let prefix = "/3/device/"
        guard path.hasPrefix(prefix) else { return nil }
        let token = path.dropFirst(prefix.count)
        return token.isEmpty ? nil : String(token)
    }

    /// The reason in a rejection's `{"reason": ...}` body; for a dropped request, what happened.
    static func reason(in response: HTTP2Response) -> String? {
        if response.afterward == .dropWithoutResponse { return "Dropped (--drop-after fault): no answer" }
        guard !response.body.isEmpty,
              let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else { return nil }
        return object["reason"] as? String
    }
}
