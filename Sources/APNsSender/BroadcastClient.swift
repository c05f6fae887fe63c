import APNsCredentials
import APNsProtocol
import APNsTransport
import Foundation

/// Broadcast push for Live Activities (apns-protocol.md §8): channel management on Apple's
/// management hosts and broadcasts on the provider API hosts, with certificate or token auth.
/// One value per endpoint; `send` opens one connection for the requests it is given.
///
/// ```swift
/// let manage = BroadcastClient(endpoint: BroadcastClient.managementEndpoint(.sandbox),
///                              trust: .system, authentication: .token(signer))
/// let created = try await manage.send([BroadcastClient.createChannel(bundleID: "com.example.app")])[0]
/// let channel = created.channelID
/// ```
package struct BroadcastClient: Sendable {
    /// What APNs answered one request: the status, its reason when it refused, and the ids it
    /// sent back.
    package struct Answer: Sendable, Equatable {
        package let status: Int
        package let reason: String?
        package let channelID: String?
        package let requestID: String?
        package let apnsID: String?
        package let body: [UInt8]

        package var isSuccess: Bool { (200..<300).contains(status) }

        /// The answer's JSON body (read and list answers), if it is an object.
        package var json: [String: Any]? { try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] }

        /// The reason as a known APNs reason (nil for an unknown one or none).
        package var apnsReason: APNsReason? { reason.flatMap(APNsReason.init(rawValue:)) }
    }

    /// Apple's channel management host and port for `environment` (§8).
    package static func managementEndpoint(_ environment: APNsEnvironment) -> Endpoint {
        environment == .sandbox ? Endpoint(host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195)
                                : Endpoint(host: "api-manage-broadcast.push.apple.com", port: 2196)
    }

    /// Broadcast payloads may be up to 5,120 bytes (device notifications: 4,096).
    package static let payloadLimit = 5120

    package let endpoint: Endpoint
    private let tls: TLSConfiguration
    private let signer: APNsTokenSigner?
    private let timeout: Double

    package init(endpoint: Endpoint, trust: TLSConfiguration.Trust, authentication: APNsClient.Authentication, timeout: Double = 10) {
        self.endpoint = endpoint
        self.timeout = timeout
        switch authentication {
        case .certificate(let identity):
            tls = .client(identity: identity, trust: trust)
            signer = nil
        case .token(let tokenSigner):
            tls = .client(identity: nil, trust: trust)
            signer = tokenSigner
        }
    }

    // MARK: requests (also what `push --print-curl` prints)

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

    // MARK: sending

    /// Sends the requests in order on one connection (with a fresh provider token under token
    /// auth) and returns one answer each. Throws `TransportError` when the connection fails,
    /// `CancellationError` as soon as the calling task is cancelled (while connecting or
    /// waiting for an answer); the connection is closed either way.
    package func send(_ requests: [HTTP2Request]) async throws -> [Answer] {
        let endpoint = self.endpoint, tls = self.tls, timeout = self.timeout
        let client = try await Cancellable.run({ try await HTTP2Client.connect(to: endpoint, tls: tls, timeout: timeout) },
                                               discard: { $0.close() })
        defer { client.close() }
        let authorization = try signer.map { "bearer \(try $0.token())" }
        var answers: [Answer] = []
        for var request in requests {
            if let authorization { request.headers.append((name: "authorization", value: authorization)) }
            let ready = request
            let response = try await Cancellable.run { try await client.send(ready, timeout: timeout) }
            let reason = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["reason"] as? String
            answers.append(Answer(status: response.status, reason: response.status >= 300 ? reason : nil,
                                  channelID: response.header("apns-channel-id"), requestID: response.header("apns-request-id"),
                                  apnsID: response.header("apns-id"), body: response.body))
        }
        return answers
    }
}
