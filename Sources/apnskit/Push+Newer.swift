import APNsCredentials
import APNsProtocol
import APNsSender
import APNsTransport
import ArgumentParser
import Foundation

/// `push --channel`, `--live-activity` and `--print-curl` (apns-protocol.md §8), kept apart
/// from the device-token path they share options with.
extension Push {
    func validateNewer() throws {
        guard newer.isBroadcast || newer.printCurl || newer.liveActivity != nil else { return }
        if legacy { throw ValidationError("--channel, --live-activity and --print-curl use the HTTP/2 provider API; drop --legacy.") }
        if newer.liveActivity != nil && payload != nil { throw ValidationError("--live-activity builds the payload; drop --payload.") }
        if newer.isBroadcast {
            if token != nil || tokens != nil { throw ValidationError("Broadcast to --channel or device --token/--tokens, not both.") }
            if credentials.authKey != nil && newer.bundleID == nil { throw ValidationError("Token auth needs --bundle-id with --channel.") }
            if let pushType, pushType != .liveactivity { throw ValidationError("Broadcasts carry Live Activity updates only: --push-type must be liveactivity.") }
            if topic != nil || collapseID != nil { throw ValidationError("Broadcasts take no --topic or --collapse-id (the bundle id is in the path).") }
        }
        if newer.printCurl && tokens != nil { throw ValidationError("--print-curl prints one request: use --token (or --channel), not --tokens.") }
    }

    /// Broadcasts, or the curl command instead of any request.
    func sendNewer(template: PushNotification, authentication: APNsClient.Authentication, certificateBundle: String?) async throws {
        let endpoint = gateway.endpoint(for: .provider)
        var requests: [HTTP2Request] = []
        let channelIDs = try newer.channelIDs()
        let bundle = newer.bundleID ?? certificateBundle
        if newer.isBroadcast {
            guard let bundle else { throw CommandFailure(message: "The certificate names no bundle id (subject UID); pass --bundle-id.", status: ExitStatus.usage) }
            requests = channelIDs.map {
                BroadcastClient.broadcast(bundleID: bundle, channelID: $0, payload: template.payload, priority: template.priority ?? .immediate,
                                          expiration: template.expiration, apnsID: template.apnsID)
            }
        } else if let token {
            var single = template
            single.token = try DeviceToken(parsing: token)
            if let problem = single.localProblem() { throw ValidationError("Cannot send this notification: \(problem).") }
            requests = [single.httpRequest()]
        }
        if newer.printCurl {
            try CurlCommand.print(requests, authentication: authentication, endpoint: endpoint,
                                  identityFiles: credentials.certificate.files, caFile: gateway.caFile)
            return
        }
        let client = BroadcastClient(endpoint: endpoint, trust: try gateway.trust(), authentication: authentication, timeout: gateway.timeout(for: .provider))
        try await BroadcastPush.send(channels: channelIDs, bundle: bundle ?? "", payload: template.payload, priority: template.priority ?? .immediate,
                                     expiration: template.expiration, apnsID: template.apnsID, client: client, format: output.format)
    }
}
