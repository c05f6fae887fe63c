import APNs
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

// An HTTP service that sends push notifications: `POST /notify/{token}` sends the request's
// body (an APNs payload; a plain alert when empty) to that device through one APNsClient that
// every request shares. The client and the Hummingbird application run in one ServiceGroup:
// SIGTERM or SIGINT stops the server taking requests, lets the requests in progress get their
// APNs answers, then closes the client, and the program exits 0.
//
// Configured from the environment: APNS_AUTH_KEY (a .p8), APNS_KEY_ID (else taken from the
// AuthKey_KEYID.p8 name), APNS_TEAM_ID and APNS_BUNDLE_ID for token authentication, or
// APNS_IDENTITY (a PEM with certificate and key) for certificate authentication; APNS_GATEWAY
// (host:port of a mock or relay standing in for the sandbox) with APNS_CA_FILE (its CA);
// HOST and PORT to listen on (127.0.0.1:8080; PORT=0 picks a free one).
LoggingSystem.bootstrap(StreamLogHandler.standardError)
let logger = Logger(label: "hummingbird-push")
let environment = ProcessInfo.processInfo.environment

func clientConfiguration() throws -> APNsClient.Configuration {
    let authentication: APNsClient.Authentication
    if let authKey = environment["APNS_AUTH_KEY"] {
        guard let teamID = environment["APNS_TEAM_ID"] else {
            throw ConfigurationError("APNS_TEAM_ID is not set; token authentication (APNS_AUTH_KEY) needs your team id.")
        }
        authentication = .token(try APNsTokenSigner.load(authKey: authKey, keyID: environment["APNS_KEY_ID"], teamID: teamID))
    } else {
        authentication = .certificate(try APNsIdentity.load(contentsOf: [environment["APNS_IDENTITY"] ?? "apns.pem"]))
    }
    var configuration = APNsClient.Configuration(gateway: .sandbox, authentication: authentication)
    configuration.bundleID = environment["APNS_BUNDLE_ID"]
    if let gateway = environment["APNS_GATEWAY"] {
        guard let colon = gateway.lastIndex(of: ":"), let port = Int(gateway[gateway.index(after: colon)...]) else {
            throw ConfigurationError("APNS_GATEWAY is \(gateway); give it as host:port.")
        }
        configuration.gateway = .custom(host: String(gateway[..<colon]), port: port, environment: .sandbox)
        if let caFile = environment["APNS_CA_FILE"] { configuration.trust = .caFile(caFile) }
    }
    return configuration
}

struct ConfigurationError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What `POST /notify/{token}` answers, as JSON.
struct NotifyAnswer: ResponseEncodable {
    var result: String
    var apnsID: String?
    var status: Int?
    var reason: String?

    enum CodingKeys: String, CodingKey {
        case result, status, reason
        case apnsID = "apns_id"
    }
}

let client: APNsClient
let port: Int
do {
    client = try APNsClient(configuration: try clientConfiguration(), logger: logger)
    guard let number = Int(environment["PORT"] ?? "8080"), (0...65_535).contains(number) else {
        throw ConfigurationError("PORT is \(environment["PORT"] ?? ""); give a port number from 0 to 65535.")
    }
    port = number
} catch {
    FileHandle.standardError.write(Data("hummingbird-push: \(error)\n".utf8))
    exit(1)
}
let host = environment["HOST"] ?? "127.0.0.1"
let alert = Array(#"{"aps":{"alert":{"title":"Hello","body":"From Hummingbird"}}}"#.utf8)

let router = Router()
router.post("notify/:token") { request, context -> EditedResponse<NotifyAnswer> in
    let text = try context.parameters.require("token")
    guard let token = try? APNsDeviceToken(parsing: text) else {
        return EditedResponse(status: .badRequest, response: NotifyAnswer(result: "invalid", reason: "\(text) is not a device token."))
    }
    // APNs takes at most 5 KB (VoIP); a larger body is answered 413 without reading the rest.
    let body = try await request.body.collect(upTo: 5_120)
    let payload = body.readableBytes > 0 ? Array(body.readableBytesView) : alert
    let result = await client.send(APNsNotification(token: token, payload: payload))
    switch result.outcome {
    case .delivered:
        return EditedResponse(status: .ok, response: NotifyAnswer(result: "delivered", apnsID: result.apnsIDText))
    case .rejected(let status, let reason, _):
        return EditedResponse(status: .unprocessableContent, response: NotifyAnswer(result: "rejected", status: status, reason: "\(reason)"))
    case .failed(let error):
        return EditedResponse(status: .serviceUnavailable, response: NotifyAnswer(result: "failed", reason: error.description))
    case .cancelled(let written):
        return EditedResponse(status: .serviceUnavailable, response: NotifyAnswer(result: written ? "cancelled, may be delivered" : "cancelled, not sent"))
    }
}

let app = Application(router: router, configuration: .init(address: .hostname(host, port: port), serverName: "hummingbird-push"),
                      onServerRunning: { channel in
                          FileHandle.standardOutput.write(Data("listening on http://\(host):\(channel.localAddress?.port ?? port)\n".utf8))
                      },
                      logger: logger)
// A group shuts down in reverse order: the application first (no new requests; those in
// progress finish their sends), then the client (its close waits for what is in flight).
let group = ServiceGroup(configuration: .init(services: [client, app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
try await group.run()
logger.info("stopped: the server has answered its last request and the client is closed")
