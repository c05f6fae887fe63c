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

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// True for the reasons this version knows (the `allCases` list).
    public var isDocumented: Bool { Self.table[rawValue] != nil }

    /// A reason this version does not know, kept as APNs sent it.
    public static func unknown(_ rawValue: String) -> APNsReason { APNsReason(rawValue: rawValue) }

    public init(from decoder: Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static let badCollapseId = APNsReason(rawValue: "BadCollapseId")
    public static let badDeviceToken = APNsReason(rawValue: "BadDeviceToken")
    public static let badExpirationDate = APNsReason(rawValue: "BadExpirationDate")
    public static let badMessageId = APNsReason(rawValue: "BadMessageId")
    public static let badPriority = APNsReason(rawValue: "BadPriority")
    public static let badTopic = APNsReason(rawValue: "BadTopic")
    public static let deviceTokenNotForTopic = APNsReason(rawValue: "DeviceTokenNotForTopic")
    public static let duplicateHeaders = APNsReason(rawValue: "DuplicateHeaders")
    public static let idleTimeout = APNsReason(rawValue: "IdleTimeout")
    public static let invalidPushType = APNsReason(rawValue: "InvalidPushType")
    public static let missingDeviceToken = APNsReason(rawValue: "MissingDeviceToken")
    public static let missingTopic = APNsReason(rawValue: "MissingTopic")
    public static let payloadEmpty = APNsReason(rawValue: "PayloadEmpty")
    public static let topicDisallowed = APNsReason(rawValue: "TopicDisallowed")
    public static let missingChannelId = APNsReason(rawValue: "MissingChannelId")
    public static let badChannelId = APNsReason(rawValue: "BadChannelId")
    public static let channelNotRegistered = APNsReason(rawValue: "ChannelNotRegistered")
    public static let invalidRequest = APNsReason(rawValue: "InvalidRequest")
    public static let invalidPolicy = APNsReason(rawValue: "InvalidPolicy")
    public static let cannotCreateChannelConfig = APNsReason(rawValue: "CannotCreateChannelConfig")
    public static let missingPushType = APNsReason(rawValue: "MissingPushType")
    public static let badCertificate = APNsReason(rawValue: "BadCertificate")
    public static let badCertificateEnvironment = APNsReason(rawValue: "BadCertificateEnvironment")
    public static let expiredProviderToken = APNsReason(rawValue: "ExpiredProviderToken")
    public static let forbidden = APNsReason(rawValue: "Forbidden")
    public static let invalidProviderToken = APNsReason(rawValue: "InvalidProviderToken")
    public static let missingProviderToken = APNsReason(rawValue: "MissingProviderToken")
    public static let unrelatedKeyIdInToken = APNsReason(rawValue: "UnrelatedKeyIdInToken")
    public static let badEnvironmentKeyIdInToken = APNsReason(rawValue: "BadEnvironmentKeyIdInToken")
    public static let badEnvironmentKeyInToken = APNsReason(rawValue: "BadEnvironmentKeyInToken")
    public static let badPath = APNsReason(rawValue: "BadPath")
    public static let methodNotAllowed = APNsReason(rawValue: "MethodNotAllowed")
    public static let unregistered = APNsReason(rawValue: "Unregistered")
    public static let expiredToken = APNsReason(rawValue: "ExpiredToken")
    public static let payloadTooLarge = APNsReason(rawValue: "PayloadTooLarge")
    public static let tooManyProviderTokenUpdates = APNsReason(rawValue: "TooManyProviderTokenUpdates")
    public static let tooManyRequests = APNsReason(rawValue: "TooManyRequests")
    public static let internalServerError = APNsReason(rawValue: "InternalServerError")
    public static let serviceUnavailable = APNsReason(rawValue: "ServiceUnavailable")
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
