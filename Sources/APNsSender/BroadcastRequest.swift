// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsTransport
import Foundation

/// The requests of broadcast push for Live Activities (apns-protocol.md §8), built in one
/// place: `APNsBroadcastClient` sends them and `--print-curl` prints them, so what is printed
/// is what would be sent.
package enum BroadcastRequest {
    /// Apple's channel management host and port for `environment` (§8).
    package static func managementEndpoint(_ environment: APNsEnvironment) -> Endpoint {
        Endpoint(host: environment.channelManagementHost, port: environment.channelManagementPort)
    }

    /// Broadcast payloads may be up to 5,120 bytes (device notifications: 4,096).
    package static let payloadLimit = 5120

    /// `POST /1/apps/<bundle>/channels`: 201 and the new id in `apns-channel-id`.
    package static func createChannel(bundleID: String, messageStoragePolicy: Int = 1, requestID: String? = nil) -> HTTP2Request {
        let body = JSONValue.object([("message-storage-policy", .int(messageStoragePolicy)), ("push-type", .string("LiveActivity"))]).serialized()
        return HTTP2Request(method: "POST", path: "/1/apps/\(bundleID)/channels", headers: requestIDHeader(requestID), body: body)
    }

    /// `GET /1/apps/<bundle>/channels` with `apns-channel-id`: the channel's settings.
    package static func readChannel(bundleID: String, channelID: String, requestID: String? = nil) -> HTTP2Request {
        HTTP2Request(method: "GET", path: "/1/apps/\(bundleID)/channels",
                     headers: [(name: "apns-channel-id", value: channelID)] + requestIDHeader(requestID))
    }

    /// `DELETE /1/apps/<bundle>/channels` with `apns-channel-id`: 204.
    package static func deleteChannel(bundleID: String, channelID: String, requestID: String? = nil) -> HTTP2Request {
        HTTP2Request(method: "DELETE", path: "/1/apps/\(bundleID)/channels",
                     headers: [(name: "apns-channel-id", value: channelID)] + requestIDHeader(requestID))
    }

    /// `GET /1/apps/<bundle>/all-channels`: `{"channels": [...]}`.
    package static func listChannels(bundleID: String, requestID: String? = nil) -> HTTP2Request {
        HTTP2Request(method: "GET", path: "/1/apps/\(bundleID)/all-channels", headers: requestIDHeader(requestID))
    }

    /// `POST /4/broadcasts/apps/<bundle>` to every device subscribed to `channelID`. A channel
    /// created with message-storage-policy 0 accepts only `expiration` 0.
    package static func broadcast(bundleID: String, channelID: String, payload: [UInt8], priority: APNsPriority = .immediate,
                                 expiration: UInt64? = nil, apnsID: String? = nil) -> HTTP2Request {
        var headers: [(name: String, value: String)] = [
            ("apns-channel-id", channelID), ("apns-push-type", APNsPushType.liveactivity.rawValue), ("apns-priority", String(priority.rawValue)),
        ]
        if let expiration { headers.append(("apns-expiration", String(expiration))) }
        if let apnsID { headers.append(("apns-id", apnsID)) }
        return HTTP2Request(method: "POST", path: "/4/broadcasts/apps/\(bundleID)", headers: headers, body: payload)
    }

    private static func requestIDHeader(_ id: String?) -> [(name: String, value: String)] {
        id.map { [(name: "apns-request-id", value: $0)] } ?? []
    }
}
