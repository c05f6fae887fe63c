// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsTransport
import Foundation

/// The mock's broadcast side (apns-protocol.md §8): channel management on its own port
/// (`/1/apps/<bundle>/channels`, `/1/apps/<bundle>/all-channels`) and broadcasts on the
/// provider port (`/4/broadcasts/apps/<bundle>`), judged as Apple documents them. Credentials
/// are checked by `ProviderAPIHandler` before a request gets here; this decides the rest.
struct BroadcastAPI {
    /// What a path asks for, or nil when it is not a broadcast path at all.
    enum Route: Equatable {
        case channels(bundle: String)
        case allChannels(bundle: String)
        case broadcast(bundle: String)
        /// Under a broadcast prefix but not a known path: 404 BadPath.
        case unknown

        var bundle: String? {
            switch self {
            case .channels(let bundle), .allChannels(let bundle), .broadcast(let bundle): return bundle
            case .unknown: return nil
            }
        }

        var isManagement: Bool {
            switch self {
            case .channels, .allChannels: return true
            case .broadcast, .unknown: return false
            }
        }
    }

    static let managementPrefix = "/1/apps/"
    static let broadcastPrefix = "/4/broadcasts/apps/"
    /// Broadcast payloads may be larger than device notifications (§8).
    static let payloadLimit = 5120

    static func route(_ path: String) -> Route? {
        // Nearly every request is a device path (/3/device/...): its second byte rules out both
        // prefixes (/4/..., /1/...) without comparing them, twice per request.
        guard let second = path.utf8.dropFirst().first, second == UInt8(ascii: "4") || second == UInt8(ascii: "1") else { return nil }
        if path.hasPrefix(broadcastPrefix) {
            let bundle = String(path.dropFirst(broadcastPrefix.count))
            return bundle.isEmpty || bundle.contains("/") ? .unknown : .broadcast(bundle: bundle)
        }
        guard path.hasPrefix(managementPrefix) else { return nil }
        let parts = path.dropFirst(managementPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return .unknown }
        switch parts[1] {
        case "channels": return .channels(bundle: String(parts[0]))
        case "all-channels": return .allChannels(bundle: String(parts[0]))
        default: return .unknown
        }
    }

    let store: ChannelStore

    /// What was accepted, for the record.
    enum Accepted {
        case broadcast(bundle: String, channel: String, payloadBytes: Int)
        case channelCall(ChannelCall)
    }

    /// The answer to an authorized request on `route`; `accepted` is called for a broadcast
    /// or channel call that succeeded (to record it) before the answer is returned.
    func answer(_ request: HTTP2Request, _ route: Route, apnsID: String, accepted: (Accepted) -> Void) -> HTTP2Response {
        var echoed: [(name: String, value: String)] = []
        if let requestID = request.header("apns-request-id") {
            guard RequestValidator.isCanonicalUUID(requestID) else { return Self.reject(.invalidRequest, echoed) }
            echoed.append(("apns-request-id", requestID.lowercased()))
        }
        let requestID = echoed.first?.value
        // Any text in the path would otherwise become a key of the store (a 10 KB one, or
        // `com.ex%2Fample`, once got 201): Apple's bundle id rule, §8.
        if let bundle = route.bundle, !BundleIdentifier.isValid(bundle) {
            if case .broadcast = route { echoed.append(("apns-id", apnsID)) }
            return Self.reject(.badTopic, echoed)
        }
        switch route {
        case .unknown:
            return Self.reject(.badPath, echoed)
        case .allChannels(let bundle):
            guard request.method == "GET" else { return Self.reject(.methodNotAllowed, echoed) }
            let channels = store.list(bundle: bundle)
            let body = JSONValue.object([("channels", .array(channels.map { .string($0) }))]).serialized()
            var call = ChannelCall(operation: .list, bundleID: bundle, channel: nil, status: 200, requestID: requestID)
            call.channelCount = channels.count
            accepted(.channelCall(call))
            return HTTP2Response(status: 200, headers: echoed + [("content-type", "application/json")], body: body)
        case .channels(let bundle):
            return manage(request, bundle: bundle, requestID: requestID, echoed, accepted: accepted)
        case .broadcast(let bundle):
            echoed.append(("apns-id", apnsID))
            guard request.method == "POST" else { return Self.reject(.methodNotAllowed, echoed) }
            let channel: String
            switch existingChannel(request, bundle: bundle) {
            case .failure(let error): return Self.reject(error.reason, echoed)
            case .success(let found): channel = found
            }
            if let reason = Self.broadcastHeaderProblem(request, policy: store.policy(bundle: bundle, channel: channel) ?? 1) {
                return Self.reject(reason, echoed)
            }
            guard !request.body.isEmpty else { return Self.reject(.payloadEmpty, echoed) }
            guard request.body.count <= Self.payloadLimit else { return Self.reject(.payloadTooLarge, echoed) }
            accepted(.broadcast(bundle: bundle, channel: channel, payloadBytes: request.body.count))
            return HTTP2Response(status: 200, headers: echoed)
        }
    }

    /// create (POST), read (GET), delete (DELETE) on `/1/apps/<bundle>/channels`.
    private func manage(_ request: HTTP2Request, bundle: String, requestID: String?, _ echoed: [(name: String, value: String)],
                        accepted: (Accepted) -> Void) -> HTTP2Response {
        func record(_ operation: ChannelCall.Operation, _ channel: String, status: Int, policy: Int? = nil) {
            var call = ChannelCall(operation: operation, bundleID: bundle, channel: channel, status: status, requestID: requestID)
            call.messageStoragePolicy = policy
            accepted(.channelCall(call))
        }
        switch request.method {
        case "POST":
            guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
                return Self.reject(.invalidRequest, echoed)
            }
            guard let policy = Self.jsonInteger(object["message-storage-policy"]), policy == 0 || policy == 1 else {
                return Self.reject(.invalidPolicy, echoed)
            }
            guard let pushType = object["push-type"] as? String else { return Self.reject(.missingPushType, echoed) }
            guard pushType == "LiveActivity" else { return Self.reject(.invalidPushType, echoed) }
            guard let id = store.create(bundle: bundle, policy: policy) else { return Self.reject(.cannotCreateChannelConfig, echoed) }
            record(.create, id, status: 201, policy: policy)
            return HTTP2Response(status: 201, headers: echoed + [("apns-channel-id", id)])
        case "GET":
            switch existingChannel(request, bundle: bundle) {
            case .failure(let error): return Self.reject(error.reason, echoed)
            case .success(let channel):
                let policy = store.policy(bundle: bundle, channel: channel) ?? 0
                let body = JSONValue.object([("message-storage-policy", .int(policy)), ("push-type", .string("LiveActivity"))]).serialized()
                record(.read, channel, status: 200, policy: policy)
                return HTTP2Response(status: 200, headers: echoed + [("apns-channel-id", channel), ("content-type", "application/json")], body: body)
            }
        case "DELETE":
            switch existingChannel(request, bundle: bundle) {
            case .failure(let error): return Self.reject(error.reason, echoed)
            case .success(let channel):
                _ = store.delete(bundle: bundle, channel: channel)
                record(.delete, channel, status: 204)
                return HTTP2Response(status: 204, headers: echoed)
            }
        default:
            return Self.reject(.methodNotAllowed, echoed)
        }
    }

    /// An integer as the JSON wrote it (`1`), or nil: Foundation hands `true` and `1.0` over as
    /// numbers that `as? Int` takes as 1 (they got 201; Apple wants the integer 0 or 1).
    static func jsonInteger(_ value: Any?) -> Int? {
        guard let number = value as? NSNumber else { return nil }
        // objCType "c" is a Bool, "d"/"f" a floating-point literal; the rest are integers.
        guard !["c", "d", "f"].contains(String(cString: number.objCType)) else { return nil }
        return number.intValue
    }

    /// The request's `apns-channel-id`, when it names a channel of `bundle`.
    private func existingChannel(_ request: HTTP2Request, bundle: String) -> Result<String, APNsReasonError> {
        let ids = request.allHeaders.filter { $0.name == "apns-channel-id" }
        guard ids.count <= 1 else { return .failure(.init(.duplicateHeaders)) }
        guard let id = ids.first?.value, !id.isEmpty else { return .failure(.init(.missingChannelId)) }
        guard ChannelStore.isWellFormed(id) else { return .failure(.init(.badChannelId)) }
        guard store.policy(bundle: bundle, channel: id) != nil else { return .failure(.init(.channelNotRegistered)) }
        return .success(id)
    }

    /// Push type, priority and expiration of a broadcast; a channel that stores no message
    /// (policy 0) takes only `apns-expiration: 0`.
    static func broadcastHeaderProblem(_ request: HTTP2Request, policy: Int) -> APNsReason? {
        guard let pushType = request.header("apns-push-type") else { return .missingPushType }
        guard pushType == APNsPushType.liveactivity.rawValue else { return .invalidPushType }
        if let text = request.header("apns-priority"), Int(text).flatMap(APNsPriority.init(rawValue:)) == nil { return .badPriority }
        if let text = request.header("apns-expiration") {
            guard let expiration = UInt64(text) else { return .badExpirationDate }
            if policy == 0 && expiration != 0 { return .badExpirationDate }
        }
        return nil
    }

    static func reject(_ reason: APNsReason, _ headers: [(name: String, value: String)]) -> HTTP2Response {
        HTTP2Response(status: reason.status ?? 400, headers: headers + [("content-type", "application/json")],
                      body: JSONValue.object([("reason", .string(reason.rawValue))]).serialized())
    }
}
