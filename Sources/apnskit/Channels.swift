// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsSender
import APNsTransport
import ArgumentParser
import Foundation

/// `apnskit channels create|read|delete|list`: broadcast channels for Live Activities on
/// Apple's channel management API (apns-protocol.md §8).
struct ChannelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channels",
        abstract: "Create, read, delete and list broadcast channels for Live Activities.",
        discussion: """
        Talks to api-manage-broadcast[.sandbox].push.apple.com (sandbox port 2195, production \
        2196) with a certificate or --auth-key token auth, like push. Broadcast to a channel with \
        `apnskit push --channel ID --bundle-id B`. Exit codes: 0 done, 1 APNs refused (the \
        reason is printed), 2 usage, 3 unreadable credentials, 4 network or TLS failure.
        """,
        subcommands: [ChannelsCreate.self, ChannelsRead.self, ChannelsDelete.self, ChannelsList.self]
    )
}

/// What every channels subcommand takes.
struct ChannelOptions: ParsableArguments {
    @OptionGroup var credentials: CredentialOptions
    @OptionGroup var gateway: GatewayOptions

    @Option(name: .customLong("bundle-id"), help: "The app's bundle id (default: the certificate's).")
    var bundleID: String?

    @Flag(name: .customLong("print-curl"), help: "Print the equivalent curl command (token auth: with a fresh JWT) instead of sending.")
    var printCurl = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        try credentials.validate(for: .channels)
        try gateway.validate(for: .channels)
        if credentials.authKey != nil && bundleID == nil { throw ValidationError("Token auth needs --bundle-id (a certificate names its own).") }
    }

    /// Makes `call` through an `APNsBroadcastClient` (or, with --print-curl, prints `curl`'s
    /// request instead) and returns its value; APNs' refusals become one sentence and exit 1,
    /// connection failures exit 4.
    func send<T>(curl: (String) -> HTTP2Request, _ call: (APNsBroadcastClient, String) async throws -> T) async throws -> (bundle: String, value: T) {
        output.apply()
        let loaded = try credentials.load()
        let authentication: APNsClient.Authentication
        var bundle = bundleID
        switch loaded {
        case .certificate(let identity):
            authentication = .certificate(identity)
            bundle = bundle ?? identity.certificate.subject.first("UID")
        case .token(let signer, _):
            authentication = .token(signer)
        }
        guard let bundle else { throw CommandFailure(message: "The certificate names no bundle id (subject UID); pass --bundle-id.", status: ExitStatus.usage) }
        try credentials.checkKeyScope(environment: APNsEnvironment(rawValue: gateway.environment.rawValue) ?? .sandbox, topic: bundle)
        let endpoint = gateway.endpoint(for: .channels)
        if printCurl {
            let printer = try CurlCommand.Printer(authentication: authentication, endpoint: endpoint,
                                                  identityFiles: credentials.certificate.files, caFile: gateway.caFile)
            printer.print(curl(bundle))
            throw ExitCode.success
        }
        let timeout = gateway.timeout(for: .channels)
        let client = APNsBroadcastClient(providerEndpoint: gateway.endpoint(for: .provider), managementEndpoint: endpoint, trust: try gateway.trust(),
                                         authentication: authentication, bundleID: bundle, connectTimeout: timeout, requestTimeout: timeout)
        let result: Result<T, Error>
        do { result = .success(try await call(client, bundle)) } catch { result = .failure(error) }
        await client.close()
        do {
            return (bundle, try result.get())
        } catch let error as APNsSendError where error.code == .rejected {
            throw CommandFailure(message: error.status.map { $0 >= 300 } ?? false ? Self.sentence(error, bundle: bundle) : error.description,
                                 status: ExitStatus.problem)
        } catch let error as APNsSendError {
            throw CommandFailure(message: "Channel management at \(endpoint) failed: \(error.description)", status: ExitStatus.network)
        }
    }

    /// APNs' status and reason, and what to do about the reasons a user can act on.
    static func sentence(_ refusal: APNsSendError, bundle: String) -> String {
        let hint: String
        switch refusal.reason {
        case .cannotCreateChannelConfig:
            hint = " \(bundle) may have reached Apple's limit of \(ChannelLimit.apple) channels in this environment; delete channels you no longer use (apnskit channels list, channels delete)."
        case .channelNotRegistered: hint = " No such channel for \(bundle) in this environment; list them with apnskit channels list."
        case .badChannelId: hint = " A channel id is the base64 text channels create printed."
        case .invalidPolicy: hint = " --message-storage-policy must be 0 (no storage) or 1 (store the most recent)."
        case .badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken: hint = " The key is limited to the other environment; use --environment accordingly or a team key."
        case .topicDisallowed: hint = " The credentials do not cover \(bundle)."
        default: hint = ""
        }
        return "APNs refused the request: \(refusal.status ?? 0) \(refusal.reason?.rawValue ?? "no reason given").\(hint)"
    }
}

/// Apple's documented channel limit, for sentences.
enum ChannelLimit {
    static let apple = "10,000"
}

/// The JSON of every channels subcommand: `channelId`(s), `bundleId`, `status`.
struct ChannelJSON: Encodable {
    let bundleId: String
    let status: Int
    var channelId: String?
    var messageStoragePolicy: Int?
    var channels: [String]?
    var requestId: String?
}

struct ChannelsCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a channel; prints its id.")

    @OptionGroup var options: ChannelOptions

    @Option(name: .customLong("message-storage-policy"), help: "0: no storage (broadcasts need apns-expiration 0); 1: APNs keeps the most recent message for devices offline (default).")
    var policy: Int = 1

    func validate() throws {
        guard policy == 0 || policy == 1 else { throw ValidationError("--message-storage-policy must be 0 (no storage) or 1 (store the most recent message).") }
    }

    func run() async throws {
        let policy = self.policy
        let (bundle, channel) = try await options.send(curl: { BroadcastRequest.createChannel(bundleID: $0, messageStoragePolicy: policy) }) {
            try await $0.createChannelAnswer(bundleID: $1, storagePolicy: APNsChannel.StoragePolicy(rawValue: policy) ?? .mostRecentMessageStored)
        }
        if options.output.format == .json {
            try JSONOutput.print(ChannelJSON(bundleId: bundle, status: channel.status, channelId: channel.value.id.rawValue, messageStoragePolicy: policy,
                                             requestId: channel.requestID.map(MessageID.text)))
        } else {
            Output.line("Created channel for \(bundle) (message-storage-policy \(policy)):")
            Output.line(channel.value.id.rawValue)
        }
    }
}

struct ChannelsRead: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "read", abstract: "Show a channel's settings.")

    @Argument(help: "The channel id (base64, as create printed it).") var channel: String
    @OptionGroup var options: ChannelOptions

    func run() async throws {
        let channel = self.channel
        let (bundle, read) = try await options.send(curl: { BroadcastRequest.readChannel(bundleID: $0, channelID: channel) }) {
            try await $0.channelAnswer(APNsChannel.ID(channel), bundleID: $1)
        }
        let policy = read.value.storagePolicy?.rawValue
        if options.output.format == .json {
            try JSONOutput.print(ChannelJSON(bundleId: bundle, status: read.status, channelId: channel, messageStoragePolicy: policy, requestId: read.requestID.map(MessageID.text)))
        } else {
            Output.line("Channel \(channel) of \(bundle): message-storage-policy \(policy.map(String.init) ?? "not given"), push type \(read.value.pushType ?? "not given").")
        }
    }
}

struct ChannelsDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a channel.")

    @Argument(help: "The channel id.") var channel: String
    @OptionGroup var options: ChannelOptions

    func run() async throws {
        let channel = self.channel
        let (bundle, deleted) = try await options.send(curl: { BroadcastRequest.deleteChannel(bundleID: $0, channelID: channel) }) {
            try await $0.deleteChannelAnswer(APNsChannel.ID(channel), bundleID: $1)
        }
        if options.output.format == .json {
            try JSONOutput.print(ChannelJSON(bundleId: bundle, status: deleted.status, channelId: channel, requestId: deleted.requestID.map(MessageID.text)))
        } else {
            Output.line("Deleted channel \(channel) of \(bundle).")
        }
    }
}

struct ChannelsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the app's channels in this environment.")

    @OptionGroup var options: ChannelOptions

    func run() async throws {
        let (bundle, list) = try await options.send(curl: { BroadcastRequest.listChannels(bundleID: $0) }) { try await $0.channelsAnswer(bundleID: $1) }
        let channels = list.value.map(\.rawValue)
        if options.output.format == .json {
            try JSONOutput.print(ChannelJSON(bundleId: bundle, status: list.status, channels: channels, requestId: list.requestID.map(MessageID.text)))
        } else {
            Output.line("\(channels.count) channel\(channels.count == 1 ? "" : "s") for \(bundle):")
            for channel in channels { Output.line(channel) }
        }
    }
}
