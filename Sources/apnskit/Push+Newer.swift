// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsSender
import CLIFormats
import APNsTransport
import ArgumentParser
import Foundation

/// `push --channel`, `--live-activity` and `--print-curl` (apns-protocol.md §8), kept apart
/// from the device-token path they share options with.
extension Push {
    func validateNewer() throws {
        guard newer.isBroadcast || newer.printCurl || newer.liveActivity != nil else { return }
        if legacy { throw ValidationError("--channel, --live-activity and --print-curl use the HTTP/2 provider API; drop --legacy.") }
        if newer.liveActivity != nil && content.payload != nil { throw ValidationError("--live-activity builds the payload; drop --payload.") }
        if newer.isBroadcast {
            if token != nil || tokens != nil { throw ValidationError("Broadcast to --channel or device --token/--tokens, not both.") }
            if credentials.authKey != nil && newer.bundleID == nil { throw ValidationError("Token auth needs --bundle-id with --channel.") }
            if let pushType = content.pushType, pushType != .liveactivity { throw ValidationError("Broadcasts carry Live Activity updates only: --push-type must be liveactivity.") }
            if content.topic != nil || content.collapseID != nil { throw ValidationError("Broadcasts take no --topic or --collapse-id (the bundle id is in the path).") }
        }
        if newer.printCurl && (results != nil || invalidTokens != nil || triage.invalidTokensJSON != nil) {
            throw ValidationError("--print-curl sends nothing, so there are no --results or --invalid-tokens to write; drop them.")
        }
    }

    /// Broadcasts, or the curl commands instead of any request.
    func sendNewer(template: APNsNotification, authentication: APNsClient.Authentication, certificateBundle: String?, sink: PushSink) async throws {
        let endpoint = gateway.endpoint(for: .provider)
        let bundle = newer.bundleID ?? certificateBundle
        if newer.isBroadcast && bundle == nil {
            throw CommandFailure(message: "The certificate names no bundle id (subject UID); pass --bundle-id.", status: ExitStatus.usage)
        }
        let broadcast = { (channel: String) in
            BroadcastRequest.broadcast(bundleID: bundle ?? "", channelID: channel, payload: template.payload, priority: template.priority ?? .immediate,
                                      expiration: template.expiration, apnsID: template.apnsID.map(MessageID.text))
        }
        if newer.printCurl {
            let printer = try CurlCommand.Printer(authentication: authentication, endpoint: endpoint,
                                                  identityFiles: credentials.certificate.files, caFile: gateway.caFile)
            if newer.isBroadcast {
                try newer.forEachChannelID { printer.print(broadcast($0)) }
            } else if let token {
                var single = template
                single.token = try APNsDeviceToken(parsing: token)
                if let problem = single.localProblem() { throw ValidationError("Cannot send this notification: \(problem).") }
                printer.print(single.httpRequest())
            } else if let tokens {
                try printBatch(tokens, template: template, printer: printer, sink: sink)
            }
            return
        }
        let timeout = gateway.timeout(for: .provider)
        let client = APNsBroadcastClient(providerEndpoint: endpoint, managementEndpoint: nil, trust: try gateway.trust(), authentication: authentication,
                                         bundleID: bundle, connectTimeout: timeout, requestTimeout: timeout)
        let update = APNsBroadcast(payload: template.payload, priority: template.priority ?? .immediate, expiration: template.expiration,
                                      apnsID: template.apnsID)
        try await BroadcastPush.send(channels: try newer.channelIDs(), bundle: bundle ?? "", broadcast: update, client: client, format: output.format)
    }

    /// `--tokens FILE --print-curl`: one curl command per line, streamed through the same feed
    /// (line bound, payload checks) a real batch uses. Lines that cannot be sent are named on
    /// stderr and make the exit status 1, as in a batch that is sent.
    private func printBatch(_ path: String, template: APNsNotification, printer: CurlCommand.Printer, sink: PushSink) throws {
        let reader: LineReader
        do { reader = try LineReader(path: path) } catch {
            throw CommandFailure(message: "Cannot read the token file: \(error) Check --tokens.", status: ExitStatus.input)
        }
        let source = path == "-" ? "stdin" : path
        let feed = PushFeed(reader: reader, template: template, check: { $0.localProblem() }) { index, token, reason, removable in
            sink.recordInvalid(index: index, token: token, reason: reason, removable: removable)
            Output.note("apnskit: \(source): \(reason) No curl command printed for it.")
        }
        while let (_, notification) = feed.next() { printer.print(notification.httpRequest()) }
        if let readError = feed.readError {
            throw CommandFailure(message: "Reading \(source) failed after \(feed.produced) commands: \(readError)", status: ExitStatus.input)
        }
        if sink.invalid > 0 { throw ExitCode(ExitStatus.problem) }
    }
}
