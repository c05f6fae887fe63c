// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// A payload that is the app's own value, encoded as the whole JSON body: PushKit and the
/// system extensions hand the app the dictionary as is, with no `aps` keys of Apple's to fill.
/// The value must encode as a JSON object (a struct, a `[String: ...]` dictionary).
public protocol APNsContentPayload: APNsPayload {
    /// The app's value: encoded as the whole body, so it must encode as a JSON object.
    associatedtype Content: Encodable & Sendable
    /// The value sent as the body.
    var content: Content { get }
}

extension APNsContentPayload {
    /// Writes `content` as the whole body, with no `aps` of Apple's around it.
    public func encode(to encoder: any Encoder) throws { try content.encode(to: encoder) }
}

/// An empty JSON object `{}`: the body of a push that carries no data (a location query).
public struct APNsNoContent: Encodable, Sendable, Hashable {
    /// The empty body.
    public init() {}
    /// Writes `{}`.
    public func encode(to encoder: any Encoder) throws { _ = encoder.container(keyedBy: APNsAnyKey.self) }
}

/// A VoIP push (push type `voip`, topic `<bundle id>.voip`, up to 5,120 bytes): PushKit gives
/// `content` to the app, which must report a call to CallKit at once.
public struct APNsVoIPPayload<Content: Encodable & Sendable>: APNsContentPayload {
    /// The value sent as the body, the dictionary the app receives.
    public var content: Content
    /// A push whose body is `content`; building the notification checks it encodes as an object
    /// within the push type's size limit.
    public init(_ content: Content) { self.content = content }
    public var pushType: APNsPushType { .voip }
}

/// A watchOS complication update (push type `complication`, topic `<bundle id>.complication`).
public struct APNsComplicationPayload<Content: Encodable & Sendable>: APNsContentPayload {
    /// The value sent as the body, the dictionary the app receives.
    public var content: Content
    /// A push whose body is `content`; building the notification checks it encodes as an object
    /// within the push type's size limit.
    public init(_ content: Content) { self.content = content }
    public var pushType: APNsPushType { .complication }
}

/// A File Provider change signal (push type `fileprovider`, topic
/// `<bundle id>.pushkit.fileprovider`): typically `{"container-identifier": ..., "domain": ...}`.
public struct APNsFileProviderPayload<Content: Encodable & Sendable>: APNsContentPayload {
    /// The value sent as the body, the dictionary the app receives.
    public var content: Content
    /// A push whose body is `content`; building the notification checks it encodes as an object
    /// within the push type's size limit.
    public init(_ content: Content) { self.content = content }
    public var pushType: APNsPushType { .fileprovider }
}

/// A Push to Talk push (push type `pushtotalk`, topic `<bundle id>.voip-ptt`): the app's
/// channel data (active speaker, session ended). Sent with expiration 0 by default, as Apple
/// asks: a late push-to-talk message is worse than none (apns-protocol.md §8).
public struct APNsPushToTalkPayload<Content: Encodable & Sendable>: APNsContentPayload {
    /// The value sent as the body, the dictionary the app receives.
    public var content: Content
    /// A push whose body is `content`; building the notification checks it encodes as an object
    /// within the push type's size limit.
    public init(_ content: Content) { self.content = content }
    public var pushType: APNsPushType { .pushtotalk }
    public var defaultExpiration: UInt64? { 0 }
}

/// A location query (push type `location`, topic `<bundle id>.location-query`): wakes the
/// app's location push service extension; the body is `{}` unless the app wants data in it.
public struct APNsLocationPayload<Content: Encodable & Sendable>: APNsContentPayload {
    /// The value sent as the body, the dictionary the app receives.
    public var content: Content
    /// A push whose body is `content`; building the notification checks it encodes as an object
    /// within the push type's size limit.
    public init(_ content: Content) { self.content = content }
    public var pushType: APNsPushType { .location }
}

extension APNsLocationPayload where Content == APNsNoContent {
    /// A location query with the empty body `{}`, the usual case: the extension needs no data.
    public init() { self.init(APNsNoContent()) }
}
