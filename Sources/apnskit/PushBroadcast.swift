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

/// `push` options for Apple's newer surface (apns-protocol.md §8): broadcasts to channels,
/// Live Activity payloads built from flags, and `--print-curl`.
struct BroadcastPushOptions: ParsableArguments {
    @Option(name: .customLong("channel"), help: ArgumentHelp("Broadcast to this channel (repeatable) instead of a device token.", valueName: "ID"))
    var channels: [String] = []

    @Option(name: .customLong("channels"), help: ArgumentHelp("Broadcast to every channel id in this file, one per line.", valueName: "FILE"))
    var channelsFile: String?

    @Option(name: .customLong("bundle-id"), help: "With --channel: the app's bundle id (default: the certificate's; required with token auth).")
    var bundleID: String?

    @Option(name: .customLong("live-activity"), help: ArgumentHelp("Build a Live Activity payload: start, update or end.", valueName: "EVENT"))
    var liveActivity: LiveActivityPayload.Event?

    @Option(name: .customLong("content-state"), help: ArgumentHelp("The activity's content state: a JSON object, or a file holding one.", valueName: "JSON|FILE"))
    var contentState: String?

    @Option(name: .customLong("attributes-type"), help: "Start: the app's ActivityAttributes type name.")
    var attributesType: String?

    @Option(help: ArgumentHelp("Start: the attributes, a JSON object or a file holding one.", valueName: "JSON|FILE"))
    var attributes: String?

    @Option(name: .customLong("stale-date"), help: "When the content goes stale: UNIX seconds, or +SECONDS from now.")
    var staleDate: String?

    @Option(name: .customLong("dismissal-date"), help: "End: when the activity leaves the Lock Screen: UNIX seconds, or +SECONDS from now.")
    var dismissalDate: String?

    @Option(name: .customLong("relevance-score"), help: "Which of several activities to show first (higher first).")
    var relevanceScore: Double?

    @Flag(name: .customLong("input-push-token"), help: "Start: ask the new activity for a push token (input-push-token: 1).")
    var inputPushToken = false

    @Option(name: .customLong("input-push-channel"), help: ArgumentHelp("Start: subscribe the new activity to this broadcast channel.", valueName: "ID"))
    var inputPushChannel: String?

    @Flag(name: .customLong("print-curl"), help: "Print the equivalent curl command instead of sending: one per token line or channel of a batch (token auth: one fresh JWT for all).")
    var printCurl = false

    var isBroadcast: Bool { !channels.isEmpty || channelsFile != nil }

    func validate() throws {
        if liveActivity == nil, contentState != nil || attributesType != nil || attributes != nil || staleDate != nil || dismissalDate != nil
            || relevanceScore != nil || inputPushToken || inputPushChannel != nil {
            throw ValidationError("--content-state, --attributes, --stale-date and the other Live Activity options need --live-activity start|update|end.")
        }
        if let relevanceScore, !relevanceScore.isFinite { throw ValidationError("--relevance-score must be a finite number.") }
        if liveActivity != nil && contentState == nil { throw ValidationError("--live-activity needs --content-state (a JSON object or a file).") }
        for (name, value) in [("--stale-date", staleDate), ("--dismissal-date", dismissalDate)] {
            if let value, Self.date(value) == nil { throw ValidationError("\(name) '\(value)' must be UNIX seconds or +SECONDS from now.") }
        }
    }

    /// Calls `body` with each channel id to broadcast to: the `--channel`s, then the lines of
    /// `--channels` (`-` for stdin; blank and `#` lines skipped), read line by line so a long
    /// file is never held whole. A channel id is short base64 text: a line over
    /// `channelLineLimit` bytes is refused (exit 3) rather than buffered.
    func forEachChannelID(_ body: (String) throws -> Void) throws {
        for id in channels { try body(id) }
        guard let channelsFile else { return }
        let source = channelsFile == "-" ? "stdin" : channelsFile
        let reader: LineReader
        do { reader = try LineReader(path: channelsFile, maximumLineLength: Self.channelLineLimit) } catch {
            throw CommandFailure(message: "Cannot read the channel file: \(error) Check --channels.", status: ExitStatus.input)
        }
        while true {
            let line: LineReader.Line?
            do { line = try reader.next() } catch {
                throw CommandFailure(message: "Reading the channel file \(source) failed: \(error)", status: ExitStatus.input)
            }
            switch line {
            case nil:
                return
            case .tooLong(let number)?:
                throw CommandFailure(message: "Line \(number) of \(source) is longer than \(Self.channelLineLimit) bytes: not a channel id. "
                                     + "Put one channel id (as channels create printed it) on each line.", status: ExitStatus.input)
            case .text(let bytes, _)?:
                let id = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                if !id.isEmpty && !id.hasPrefix("#") { try body(id) }
            }
        }
    }

    /// The longest line `--channels` takes: Apple's ids are about 24 characters.
    static let channelLineLimit = 1024

    /// The channel ids to broadcast to, all of them (the sender reports per channel). At most
    /// Apple's 10,000 channels an app can have in one environment: more cannot all be live
    /// channels, and the list is held in memory.
    func channelIDs() throws -> [String] {
        var ids: [String] = []
        try forEachChannelID {
            guard ids.count < Self.channelCountLimit else {
                throw CommandFailure(message: "More than \(ChannelLimit.apple) channel ids to broadcast to, Apple's limit of channels per app and "
                                     + "environment; remove stale or repeated ids (apnskit channels list shows the live ones).", status: ExitStatus.usage)
            }
            ids.append($0)
        }
        return ids
    }

    /// Apple's channel limit per app and environment (apns-protocol.md §8).
    static let channelCountLimit = 10_000

    /// The Live Activity payload the flags describe (nil without --live-activity); `title`
    /// and `body` are push's --title and --alert.
    func liveActivityPayload(title: String?, body: String?) throws -> [UInt8]? {
        guard let liveActivity, let contentState else { return nil }
        var payload = LiveActivityPayload(event: liveActivity, contentState: try Self.jsonObject(contentState, option: "--content-state"))
        payload.staleDate = staleDate.flatMap(Self.date)
        payload.dismissalDate = dismissalDate.flatMap(Self.date)
        payload.relevanceScore = relevanceScore
        payload.attributesType = attributesType
        payload.attributes = try attributes.map { try Self.jsonObject($0, option: "--attributes") }
        payload.alertTitle = title
        payload.alertBody = body
        payload.inputPushToken = inputPushToken
        payload.inputPushChannel = inputPushChannel
        if let problem = payload.problem() { throw ValidationError("Cannot build the Live Activity payload: \(problem).") }
        return payload.json()
    }

    /// A JSON object given inline or in a file.
    static func jsonObject(_ text: String, option: String) throws -> JSONValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let bytes: [UInt8]
        if trimmed.hasPrefix("{") {
            bytes = Array(trimmed.utf8)
        } else {
            guard let data = FileManager.default.contents(atPath: text) else {
                throw CommandFailure(message: "\(option) '\(text)' is neither a JSON object nor a readable file; check the path.", status: ExitStatus.input)
            }
            bytes = Array(data)
        }
        guard let value = JSONValue(parsing: bytes), case .object = value else {
            throw CommandFailure(message: "\(option) \(trimmed.hasPrefix("{") ? "" : "in \(text) ")is not a JSON object; fix the JSON.", status: ExitStatus.input)
        }
        return value
    }

    /// UNIX seconds, or `+SECONDS` from now; nil past the year 5138 (1e11 seconds, where the
    /// lint reads milliseconds), before 1970, or not a finite number.
    static func date(_ text: String) -> Date? {
        let relative = text.hasPrefix("+")
        guard let seconds = Double(relative ? String(text.dropFirst()) : text), seconds.isFinite, seconds >= 0, seconds < 1e11 else { return nil }
        return relative ? Date().addingTimeInterval(seconds) : Date(timeIntervalSince1970: seconds)
    }
}

/// Sends a broadcast to each channel and reports per channel.
enum BroadcastPush {
    /// One JSON line of `push --channel --format json`.
    struct ChannelResult: Encodable {
        let channel: String
        let status: Int
        let reason: String?
        let apnsId: String?
    }

    struct Report: Encodable {
        let bundleId: String
        let delivered: Int
        let rejected: Int
        let results: [ChannelResult]
    }

    static func send(channels: [String], bundle: String, broadcast: APNsBroadcast, client: APNsBroadcastClient, format: OutputFormat) async throws {
        guard broadcast.payload.count <= BroadcastRequest.payloadLimit else {
            throw ValidationError("The broadcast payload is \(broadcast.payload.count) bytes; APNs takes at most \(BroadcastRequest.payloadLimit) (it would answer 413 PayloadTooLarge).")
        }
        let sent = await client.broadcast(broadcast, to: channels.map(APNsChannel.ID.init(rawValue:)), bundleID: bundle)
        await client.close()
        // No answer for a channel (the gateway unreachable, the connection lost for good):
        // a network failure, exit 4, as before any channel is reported.
        for result in sent {
            switch result.outcome {
            case .failed(let error):
                throw CommandFailure(message: "Cannot broadcast through \(client.providerEndpoint): \(error.description)", status: ExitStatus.network)
            case .cancelled:
                throw CommandFailure(message: "Cannot broadcast through \(client.providerEndpoint): cancelled before APNs answered.", status: ExitStatus.network)
            case .delivered, .rejected: continue
            }
        }
        let results = sent.map {
            ChannelResult(channel: $0.channel.rawValue, status: $0.status ?? 0,
                          reason: $0.reason.flatMap { $0 == APNsBroadcastClient.noReasonGiven ? nil : $0.rawValue }, apnsId: $0.apnsIDText)
        }
        let delivered = sent.filter(\.isDelivered).count
        switch format {
        case .json:
            try JSONOutput.print(Report(bundleId: bundle, delivered: delivered, rejected: sent.count - delivered, results: results))
        case .text:
            for result in results {
                Output.line(result.status == 200 ? "channel \(result.channel): accepted (apns-id \(result.apnsId ?? "none"))"
                                                 : "channel \(result.channel): \(result.status) \(result.reason ?? "no reason")")
            }
            Output.line("\(delivered) of \(sent.count) broadcast\(sent.count == 1 ? "" : "s") accepted.")
        }
        if delivered < sent.count { throw ExitCode(ExitStatus.problem) }
    }
}
extension LiveActivityPayload.Event: ExpressibleByArgument {}
