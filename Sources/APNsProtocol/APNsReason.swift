// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// A reason APNs gives in `{"reason": ...}`: the documented ones as static members (each
/// with its status and what a sender should do), and any other string APNs may start sending
/// one day as `unknown` - so a result always carries the reason it got, and code that
/// switches over reasons keeps compiling when new ones are added here (apns-protocol.md §1).
///
/// A struct, not an enum: adding a documented reason is not a breaking change for callers.
/// `switch` works as usual (`case .unregistered:`), with a `default`.
public struct APNsReason: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible, CaseIterable {
    /// The string APNs sent (e.g. "BadDeviceToken").
    public let rawValue: String

    /// Any string, documented or not: `APNsReason(rawValue: "BadDeviceToken") == .badDeviceToken`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The string APNs sent (`BadDeviceToken`), as logs and metrics show it.
    public var description: String { rawValue }

    /// True for the reasons this version knows (the `allCases` list).
    public var isDocumented: Bool { Self.table[rawValue] != nil }

    /// A reason this version does not know, kept as APNs sent it.
    public static func unknown(_ rawValue: String) -> APNsReason { APNsReason(rawValue: rawValue) }

    /// Decodes any string: an undocumented reason is kept, never a decoding error.
    public init(from decoder: Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }

    /// Encodes the string APNs sent, so a stored result decodes to the same reason.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// 400: `apns-collapse-id` is over 64 bytes; shorten it (the same request fails the same way).
    public static let badCollapseId = APNsReason(rawValue: "BadCollapseId")
    /// 400: the token is malformed or belongs to the other environment; check which gateway it was registered with (`Configuration.tokenDiagnosis` asks the other one) before removing it.
    public static let badDeviceToken = APNsReason(rawValue: "BadDeviceToken")
    /// 400: `apns-expiration` is not UNIX seconds; send a number (0: deliver once, store nothing).
    public static let badExpirationDate = APNsReason(rawValue: "BadExpirationDate")
    /// 400: `apns-id` is not a lowercase canonical UUID; fix it or leave it out and let the client make one.
    public static let badMessageId = APNsReason(rawValue: "BadMessageId")
    /// 400: `apns-priority` is not 10, 5 or 1; background pushes must use 5.
    public static let badPriority = APNsReason(rawValue: "BadPriority")
    /// 400: `apns-topic` does not fit the push type (a `.voip`, `.complication`, ... suffix missing or wrong); use `APNsNotification.topic(bundleID:pushType:)`.
    public static let badTopic = APNsReason(rawValue: "BadTopic")
    /// 400: the token belongs to another app; send it with that app's bundle id, never retry it as it is.
    public static let deviceTokenNotForTopic = APNsReason(rawValue: "DeviceTokenNotForTopic")
    /// 400: a header was sent twice; send each `apns-*` header once.
    public static let duplicateHeaders = APNsReason(rawValue: "DuplicateHeaders")
    /// 400: APNs closed a connection that was idle too long; retryable: the client reconnects and sends again.
    public static let idleTimeout = APNsReason(rawValue: "IdleTimeout")
    /// 400: `apns-push-type` is not one APNs knows; use an `APNsPushType`.
    public static let invalidPushType = APNsReason(rawValue: "InvalidPushType")
    /// 400: the request path has no device token (`/3/device/` alone).
    public static let missingDeviceToken = APNsReason(rawValue: "MissingDeviceToken")
    /// 400: no `apns-topic`, which token auth and multi-topic certificates require; set `Configuration.bundleID` or the notification's topic.
    public static let missingTopic = APNsReason(rawValue: "MissingTopic")
    /// 400: the body is empty; send a JSON object, `{}` at least.
    public static let payloadEmpty = APNsReason(rawValue: "PayloadEmpty")
    /// 400: the credentials do not cover this topic; use the bundle id the certificate or key was issued for.
    public static let topicDisallowed = APNsReason(rawValue: "TopicDisallowed")
    /// 400 (broadcasts, apns-protocol.md §8): no `apns-channel-id`; create a channel and send to its id.
    public static let missingChannelId = APNsReason(rawValue: "MissingChannelId")
    /// 400 (broadcasts, §8): `apns-channel-id` is not a channel of this bundle; use the id the create call returned.
    public static let badChannelId = APNsReason(rawValue: "BadChannelId")
    /// 400 (broadcasts, §8): the channel does not exist (any more); create it again and hand the new id to the apps.
    public static let channelNotRegistered = APNsReason(rawValue: "ChannelNotRegistered")
    /// 400 (channel management, §8): the request is malformed; check its path and JSON body.
    public static let invalidRequest = APNsReason(rawValue: "InvalidRequest")
    /// 400 (channel management, §8): `message-storage-policy` is not 0 or 1.
    public static let invalidPolicy = APNsReason(rawValue: "InvalidPolicy")
    /// 400 (channel management, §8): the bundle has the most channels allowed; delete unused ones first.
    public static let cannotCreateChannelConfig = APNsReason(rawValue: "CannotCreateChannelConfig")
    /// 400 (broadcasts, §8): no `apns-push-type`; broadcasts are `liveactivity`.
    public static let missingPushType = APNsReason(rawValue: "MissingPushType")
    /// 403: the client certificate is not an APNs push certificate; use the one Apple issued for this app, with its key.
    public static let badCertificate = APNsReason(rawValue: "BadCertificate")
    /// 403: the certificate is for the other environment; use a development certificate with the sandbox, a production one with production.
    public static let badCertificateEnvironment = APNsReason(rawValue: "BadCertificateEnvironment")
    /// 403: the provider token is over an hour old (or this machine's clock is wrong); the client makes a new one, at most every 20 minutes.
    public static let expiredProviderToken = APNsReason(rawValue: "ExpiredProviderToken")
    /// 403: the signing key was revoked or may not be used here; make a new key in the developer portal.
    public static let forbidden = APNsReason(rawValue: "Forbidden")
    /// 403: the provider token does not verify; check the key id, the team id and that the .p8 file is that key's.
    public static let invalidProviderToken = APNsReason(rawValue: "InvalidProviderToken")
    /// 403: neither a client certificate nor an `authorization` header; configure one of the two `Authentication`s.
    public static let missingProviderToken = APNsReason(rawValue: "MissingProviderToken")
    /// 403 (scoped keys, §8): the connection was opened with another key; keep one key per connection.
    public static let unrelatedKeyIdInToken = APNsReason(rawValue: "UnrelatedKeyIdInToken")
    /// 403 (scoped keys, §8): the key is limited to the other environment; use it with that gateway, or make a key for both.
    public static let badEnvironmentKeyIdInToken = APNsReason(rawValue: "BadEnvironmentKeyIdInToken")
    /// 403 (scoped keys, §8): the token was signed by a key limited to the other environment; sign with a key valid here.
    public static let badEnvironmentKeyInToken = APNsReason(rawValue: "BadEnvironmentKeyInToken")
    /// 404: the request path is not `/3/device/<token>`.
    public static let badPath = APNsReason(rawValue: "BadPath")
    /// 405: the method was not POST.
    public static let methodNotAllowed = APNsReason(rawValue: "MethodNotAllowed")
    /// 410: the app is gone from the device or turned notifications off; stop sending to the token unless the app registered it again after the result's timestamp (`APNsSendResult.tokenRemoval(registeredAt:)`).
    public static let unregistered = APNsReason(rawValue: "Unregistered")
    /// 410: the token expired; stop sending to it and wait for the app to register a new one.
    public static let expiredToken = APNsReason(rawValue: "ExpiredToken")
    /// 413: the body is over the push type's limit (4,096 bytes; 5,120 for VoIP and broadcasts); send less, such as an id the app fetches the rest for.
    public static let payloadTooLarge = APNsReason(rawValue: "PayloadTooLarge")
    /// 429: the provider token changed less than 20 minutes after the last; reuse one token for 20 to 60 minutes, as the client does.
    public static let tooManyProviderTokenUpdates = APNsReason(rawValue: "TooManyProviderTokenUpdates")
    /// 429: too many notifications to this device too fast; retryable after a delay, and worth slowing down for.
    public static let tooManyRequests = APNsReason(rawValue: "TooManyRequests")
    /// 500: APNs failed; retryable with back-off.
    public static let internalServerError = APNsReason(rawValue: "InternalServerError")
    /// 503: APNs is overloaded or down; retryable with back-off.
    public static let serviceUnavailable = APNsReason(rawValue: "ServiceUnavailable")
    /// 503: APNs is shutting this connection down; retryable: the client sends again on a new connection.
    public static let shutdown = APNsReason(rawValue: "Shutdown")

    /// Every documented reason, in the order of Apple's table.
    public static let allCases: [APNsReason] = [
        .badCollapseId,
        .badDeviceToken,
        .badExpirationDate,
        .badMessageId,
        .badPriority,
        .badTopic,
        .deviceTokenNotForTopic,
        .duplicateHeaders,
        .idleTimeout,
        .invalidPushType,
        .missingDeviceToken,
        .missingTopic,
        .payloadEmpty,
        .topicDisallowed,
        .missingChannelId,
        .badChannelId,
        .channelNotRegistered,
        .invalidRequest,
        .invalidPolicy,
        .cannotCreateChannelConfig,
        .missingPushType,
        .badCertificate,
        .badCertificateEnvironment,
        .expiredProviderToken,
        .forbidden,
        .invalidProviderToken,
        .missingProviderToken,
        .unrelatedKeyIdInToken,
        .badEnvironmentKeyIdInToken,
        .badEnvironmentKeyInToken,
        .badPath,
        .methodNotAllowed,
        .unregistered,
        .expiredToken,
        .payloadTooLarge,
        .tooManyProviderTokenUpdates,
        .tooManyRequests,
        .internalServerError,
        .serviceUnavailable,
        .shutdown,
    ]

    /// The HTTP status APNs sends with this reason; nil for a reason this version does not know.
    public var status: Int? { Self.table[rawValue] }

    private static let table: [String: Int] = [
        "BadCollapseId": 400,
        "BadDeviceToken": 400,
        "BadExpirationDate": 400,
        "BadMessageId": 400,
        "BadPriority": 400,
        "BadTopic": 400,
        "DeviceTokenNotForTopic": 400,
        "DuplicateHeaders": 400,
        "IdleTimeout": 400,
        "InvalidPushType": 400,
        "MissingDeviceToken": 400,
        "MissingTopic": 400,
        "PayloadEmpty": 400,
        "TopicDisallowed": 400,
        "MissingChannelId": 400,
        "BadChannelId": 400,
        "ChannelNotRegistered": 400,
        "InvalidRequest": 400,
        "InvalidPolicy": 400,
        "CannotCreateChannelConfig": 400,
        "MissingPushType": 400,
        "BadCertificate": 403,
        "BadCertificateEnvironment": 403,
        "ExpiredProviderToken": 403,
        "Forbidden": 403,
        "InvalidProviderToken": 403,
        "MissingProviderToken": 403,
        "UnrelatedKeyIdInToken": 403,
        "BadEnvironmentKeyIdInToken": 403,
        "BadEnvironmentKeyInToken": 403,
        "BadPath": 404,
        "MethodNotAllowed": 405,
        "Unregistered": 410,
        "ExpiredToken": 410,
        "PayloadTooLarge": 413,
        "TooManyProviderTokenUpdates": 429,
        "TooManyRequests": 429,
        "InternalServerError": 500,
        "ServiceUnavailable": 503,
        "Shutdown": 503,
    ]

    /// Worth sending again later: rate limits and server trouble. Everything else is final.
    public var isRetryable: Bool {
        self == .tooManyRequests || self == .internalServerError || self == .serviceUnavailable || self == .shutdown || self == .idleTimeout
    }

    /// The token should be removed from the provider's database.
    public var invalidatesToken: Bool {
        self == .unregistered || self == .expiredToken || self == .badDeviceToken
    }
}
