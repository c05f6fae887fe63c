// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsTransport
import Foundation
import Logging
import Metrics

/// Broadcast push for Live Activities (apns-protocol.md §8) on the same footing as
/// `APNsClient`: channel create, read, delete and list on the channel management API, and
/// broadcasts on the provider API, each through a pool of connections with the same retries
/// (429 and 5xx with back-off, requests the server did not process, lost connections),
/// outage handling, logs (none without a logger) and metrics (labelled with the environment).
///
/// ```swift
/// import APNs
///
/// let client = try APNsBroadcastClient(configuration: .init(provider))
/// let channel = try await client.createChannel(bundleID: "com.example.app", storagePolicy: .mostRecentMessageStored)
/// let result = await client.broadcast(APNsBroadcast(payload: update), to: channel.id)
/// try await client.deleteChannel(channel.id)
/// await client.close()
/// ```
///
/// Channel calls return a value or throw an `APNsSendError`: `rejected` (with APNs' `status`
/// and `reason`), `gatewayUnreachable`, `credentialsRejected`, `connectionLost`, `clientClosed`,
/// `invalidConfiguration`, or `cancelled` when the calling task was cancelled (at once, with
/// `mayHaveBeenDelivered` saying whether the request had gone out). Broadcasts never throw:
/// every outcome is in the `APNsBroadcastResult`, in the words of `APNsSendResult`.
public final class APNsBroadcastClient: Sendable {
    /// The bundle id channel calls and broadcasts use when they name none:
    /// `Configuration.provider.bundleID`, else the certificate's.
    public let bundleID: String?
    package let providerEndpoint: Endpoint
    package let managementEndpoint: Endpoint?
    private let broadcasts: PooledExchange
    private let management: PooledExchange?
    private let observer: SenderObserver
    /// Broadcasts in flight at once in `broadcast(_:to:)` over a list of channels.
    private let window: Int

    /// A client for `configuration`; `logger` and `metricsFactory` as for `APNsClient`. Throws
    /// `invalidConfiguration` for a configuration it cannot use (`Configuration.problem()`,
    /// the channel management gateway's port included): nothing is opened then.
    public convenience init(configuration: Configuration, logger: Logger? = nil, metricsFactory: MetricsFactory? = nil) throws(APNsSendError) {
        let provider = configuration.provider
        if let problem = provider.problem(alsoChecking: configuration.channelManagement.map { [$0] } ?? []) { throw problem }
        self.init(providerEndpoint: provider.gateway.providerEndpoint(proxy: provider.proxy),
                  managementEndpoint: configuration.channelManagement?.managementEndpoint(proxy: provider.proxy), trust: provider.transportTrust,
                  authentication: provider.authentication, bundleID: provider.bundleID, connections: provider.pool.connections,
                  eventLoops: provider.pool.eventLoops, concurrency: provider.pool.concurrency, policy: provider.retry,
                  connectTimeout: provider.timeouts.connect.seconds, requestTimeout: provider.timeouts.request.seconds,
                  healthCheck: provider.transportHealthCheck, logger: logger, environment: provider.environment, metricsFactory: metricsFactory)
    }

    /// Everything, in the transport's terms (the CLI and tests). The management API gets one
    /// connection (its calls are rare), broadcasts `connections`.
    package init(providerEndpoint: Endpoint, managementEndpoint: Endpoint?, trust: TLSConfiguration.Trust, authentication: APNsClient.Authentication,
                 bundleID: String? = nil, connections: Int = 1, eventLoops: Int = 1, concurrency: Int = 100,
                 policy: APNsRetryPolicy = APNsRetryPolicy(), connectTimeout: Double = 10, requestTimeout: Double = 30,
                 healthCheck: HTTP2HealthCheck = HTTP2HealthCheck(), logger: Logger? = nil, environment: APNsEnvironment? = nil,
                 metricsFactory: MetricsFactory? = nil) {
        self.providerEndpoint = providerEndpoint
        self.managementEndpoint = managementEndpoint
        self.bundleID = bundleID ?? authentication.identity?.bundleID
        window = max(1, connections) * max(1, concurrency)
        let observer = SenderObserver(logger: logger, environment: environment?.rawValue ?? "custom", factory: metricsFactory)
        self.observer = observer
        // One token for both APIs: APNs counts token changes per key (apns-protocol.md §1).
        let tokens = authentication.tokenCache()
        let connector = { (endpoint: Endpoint) in
            HTTP2ProviderConnector(endpoint: endpoint, trust: trust, authentication: authentication, connectTimeout: connectTimeout,
                                   requestTimeout: requestTimeout, healthCheck: healthCheck, eventLoops: eventLoops)
        }
        broadcasts = PooledExchange(pool: ConnectionPool(connector: connector(providerEndpoint), size: connections, policy: policy, observer: observer),
                                    policy: policy, tokens: tokens)
        management = managementEndpoint.map {
            PooledExchange(pool: ConnectionPool(connector: connector($0), size: 1, policy: policy, observer: observer), policy: policy, tokens: tokens)
        }
    }

    // MARK: channels

    /// Creates a channel (`POST /1/apps/<bundle>/channels`, 201).
    public func createChannel(bundleID: String? = nil, storagePolicy: APNsChannel.StoragePolicy = .mostRecentMessageStored,
                              requestID: UUID? = nil) async throws(APNsSendError) -> APNsChannel {
        try await createChannelAnswer(bundleID: bundleID, storagePolicy: storagePolicy, requestID: requestID).value
    }

    /// Reads a channel's settings (`GET /1/apps/<bundle>/channels`).
    public func channel(_ id: APNsChannel.ID, bundleID: String? = nil, requestID: UUID? = nil) async throws(APNsSendError) -> APNsChannel {
        try await channelAnswer(id, bundleID: bundleID, requestID: requestID).value
    }

    /// Deletes a channel (`DELETE /1/apps/<bundle>/channels`, 204).
    public func deleteChannel(_ id: APNsChannel.ID, bundleID: String? = nil, requestID: UUID? = nil) async throws(APNsSendError) {
        _ = try await deleteChannelAnswer(id, bundleID: bundleID, requestID: requestID)
    }

    /// The app's channels in this environment (`GET /1/apps/<bundle>/all-channels`).
    public func channels(bundleID: String? = nil, requestID: UUID? = nil) async throws(APNsSendError) -> [APNsChannel.ID] {
        try await channelsAnswer(bundleID: bundleID, requestID: requestID).value
    }

    /// A channel call's value with APNs' 2xx status and `apns-request-id` (the CLI's JSON
    /// reports both).
    package struct ChannelAnswer<Value: Sendable>: Sendable {
        package let value: Value
        package let status: Int
        package let requestID: UUID?
    }

    package func createChannelAnswer(bundleID: String? = nil, storagePolicy: APNsChannel.StoragePolicy = .mostRecentMessageStored,
                                     requestID: UUID? = nil) async throws(APNsSendError) -> ChannelAnswer<APNsChannel> {
        let bundle = try self.bundle(bundleID)
        let request = BroadcastRequest.createChannel(bundleID: bundle, messageStoragePolicy: storagePolicy.rawValue, requestID: requestID.map(MessageID.text))
        return try await manage("create", request) { response throws(APNsSendError) in
            guard let id = response.header("apns-channel-id") else {
                throw APNsSendError(.rejected, "APNs answered \(response.status) without an apns-channel-id header: no channel id to report.",
                                    mayHaveBeenDelivered: true, status: response.status)
            }
            return APNsChannel(id: APNsChannel.ID(id), bundleID: bundle, storagePolicy: storagePolicy, pushType: "LiveActivity",
                               requestID: Self.requestID(response))
        }
    }

    package func channelAnswer(_ id: APNsChannel.ID, bundleID: String? = nil, requestID: UUID? = nil) async throws(APNsSendError) -> ChannelAnswer<APNsChannel> {
        let bundle = try self.bundle(bundleID)
        let request = BroadcastRequest.readChannel(bundleID: bundle, channelID: id.rawValue, requestID: requestID.map(MessageID.text))
        return try await manage("read", request) { response in
            let settings = try? JSONDecoder().decode(ChannelSettings.self, from: Data(response.body))
            return APNsChannel(id: id, bundleID: bundle, storagePolicy: settings?.policy.flatMap(APNsChannel.StoragePolicy.init(rawValue:)),
                               pushType: settings?.pushType, requestID: Self.requestID(response))
        }
    }

    package func deleteChannelAnswer(_ id: APNsChannel.ID, bundleID: String? = nil, requestID: UUID? = nil) async throws(APNsSendError) -> ChannelAnswer<Void> {
        let bundle = try self.bundle(bundleID)
        let request = BroadcastRequest.deleteChannel(bundleID: bundle, channelID: id.rawValue, requestID: requestID.map(MessageID.text))
        return try await manage("delete", request) { _ in () }
    }

    package func channelsAnswer(bundleID: String? = nil, requestID: UUID? = nil) async throws(APNsSendError) -> ChannelAnswer<[APNsChannel.ID]> {
        let bundle = try self.bundle(bundleID)
        return try await manage("list", BroadcastRequest.listChannels(bundleID: bundle, requestID: requestID.map(MessageID.text))) { response in
            let list = try? JSONDecoder().decode(ChannelList.self, from: Data(response.body))
            return (list?.channels ?? []).map(APNsChannel.ID.init(rawValue:))
        }
    }

    // MARK: broadcasts

    /// Sends `broadcast` to every device subscribed to `channel`; never throws.
    public func broadcast(_ broadcast: APNsBroadcast, to channel: APNsChannel.ID, bundleID: String? = nil) async -> APNsBroadcastResult {
        let apnsID = broadcast.apnsID.map(MessageID.text) ?? APNsNotification.newID()
        let bundle: String
        do { bundle = try self.bundle(bundleID) } catch {
            return APNsBroadcastResult(channel: channel, apnsIDText: apnsID, outcome: .failed(error), attempts: 0)
        }
        guard broadcast.payload.count <= BroadcastRequest.payloadLimit else {
            let problem = "The broadcast payload is \(broadcast.payload.count) bytes; APNs takes at most \(BroadcastRequest.payloadLimit) (it would answer 413 PayloadTooLarge)."
            return APNsBroadcastResult(channel: channel, apnsIDText: apnsID, outcome: .failed(APNsSendError(.invalidNotification, problem)), attempts: 0)
        }
        let request = BroadcastRequest.broadcast(bundleID: bundle, channelID: channel.rawValue, payload: broadcast.payload, priority: broadcast.priority,
                                                 expiration: broadcast.expiration, apnsID: apnsID)
        let started = DispatchTime.now().uptimeNanoseconds
        let answer = await broadcasts.perform(request)
        observer.finishedRequest("broadcast", answer.outcome, attempts: answer.attempts, startedNanos: started)
        return APNsBroadcastResult(channel: channel, apnsIDText: answer.response?.header("apns-id") ?? apnsID, outcome: answer.outcome,
                                   attempts: answer.attempts, possiblyDuplicated: answer.possiblyDuplicated)
    }

    /// Sends `broadcast` to each of `channels`, up to `connections` x `concurrency` at once;
    /// the results in the order of `channels`.
    public func broadcast(_ broadcast: APNsBroadcast, to channels: [APNsChannel.ID], bundleID: String? = nil) async -> [APNsBroadcastResult] {
        await withTaskGroup(of: (Int, APNsBroadcastResult).self) { group in
            var results = [APNsBroadcastResult?](repeating: nil, count: channels.count)
            var next = 0
            func collect(_ done: (Int, APNsBroadcastResult)?) { if let (index, result) = done { results[index] = result } }
            for (index, channel) in channels.enumerated() {
                if next >= window { collect(await group.next()) }
                group.addTask { (index, await self.broadcast(broadcast, to: channel, bundleID: bundleID)) }
                next += 1
            }
            while let done = await group.next() { collect(done) }
            return results.map { $0! }
        }
    }

    /// Closes every connection for good: calls after this fail at once (`clientClosed`).
    public func close() async {
        await broadcasts.pool.closeAll()
        await management?.pool.closeAll()
    }

    // MARK: internals

    /// What a rejection without a readable reason carries.
    package static var noReasonGiven: APNsReason { BatchSender.noReasonGiven }

    private func bundle(_ given: String?) throws(APNsSendError) -> String {
        guard let bundle = given ?? bundleID else {
            throw APNsSendError(.invalidConfiguration, "No bundle id: pass bundleID, or set Configuration.provider.bundleID (a certificate names its own).")
        }
        return bundle
    }

    /// One channel management call: its 2xx answer read by `parse`; every other outcome thrown.
    private func manage<Value>(_ operation: String, _ request: HTTP2Request,
                               parse: (HTTP2Response) throws(APNsSendError) -> Value) async throws(APNsSendError) -> ChannelAnswer<Value> {
        guard let management else {
            throw APNsSendError(.invalidConfiguration, "No channel management gateway: set Configuration.channelManagement (a custom gateway names none).")
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let answer = await management.perform(request)
        observer.finishedRequest(operation, answer.outcome, attempts: answer.attempts, startedNanos: started)
        switch answer.outcome {
        case .delivered:
            let response = answer.response ?? HTTP2Response(status: 200)
            return ChannelAnswer(value: try parse(response), status: response.status, requestID: Self.requestID(response))
        case .rejected(let status, let reason, _):
            let known = reason == Self.noReasonGiven ? nil : reason
            throw APNsSendError(.rejected, "APNs refused the channel \(operation): \(status) \(known?.rawValue ?? "no reason given").",
                                status: status, reason: known)
        case .failed(let error):
            throw error
        case .cancelled(let written):
            throw APNsSendError(.cancelled, "The channel \(operation) was cancelled \(written ? "after it was sent: APNs may have done it" : "before it was sent").",
                                mayHaveBeenDelivered: written)
        }
    }

    private static func requestID(_ response: HTTP2Response) -> UUID? { response.header("apns-request-id").flatMap(UUID.init(uuidString:)) }

    /// A read's answer: `{"message-storage-policy": N, "push-type": "LiveActivity"}`.
    private struct ChannelSettings: Decodable {
        let policy: Int?
        let pushType: String?
        enum CodingKeys: String, CodingKey {
            case policy = "message-storage-policy"
            case pushType = "push-type"
        }
    }

    /// A list's answer: `{"channels": [...]}`.
    private struct ChannelList: Decodable {
        let channels: [String]
    }
}
