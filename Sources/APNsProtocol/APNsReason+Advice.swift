// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// What a provider should change when APNs answers with a reason: one line each, in the
/// sender's terms (header names, flags of `apnskit push`). The mock's inbox shows it next to
/// every rejected request; any other front end can use the same table instead of a copy.
extension APNsReason {
    /// nil for a reason this version does not know.
    public var advice: String? {
        switch self {
        case .badCollapseId: return "apns-collapse-id is longer than 64 bytes: shorten it."
        case .badDeviceToken: return "The device token is malformed or for the other environment: send sandbox tokens (development builds) to the sandbox gateway and production tokens to production."
        case .badExpirationDate: return "apns-expiration is not a UNIX time in seconds: send a number (0 to deliver once)."
        case .badMessageId: return "apns-id is not a canonical UUID (8-4-4-4-12 hex digits): fix it or leave it out."
        case .badPriority: return "apns-priority must be 10, 5 or 1 (background pushes: 5)."
        case .badTopic: return "The topic does not fit the push type: voip needs the .voip suffix, complication .complication, liveactivity .push-type.liveactivity, ..."
        case .deviceTokenNotForTopic: return "The token belongs to another app: send it with that app's bundle id as apns-topic."
        case .duplicateHeaders: return "A header was sent twice: send each apns-* header once."
        case .idleTimeout: return "The connection was idle too long: reconnect and send again."
        case .invalidPushType: return "apns-push-type is not one APNs knows: alert, background, voip, liveactivity, complication, fileprovider, mdm, location, pushtotalk, widgets."
        case .missingDeviceToken: return "The path has no device token: POST to /3/device/<token>."
        case .missingTopic: return "This certificate covers several topics: send apns-topic (the bundle id)."
        case .payloadEmpty: return "The body is empty: send a JSON payload such as {\"aps\":{\"alert\":\"Hi\"}}."
        case .topicDisallowed: return "The credentials do not cover this topic: use the bundle id the certificate or key was issued for."
        case .missingChannelId: return "A broadcast needs apns-channel-id: create a channel first (apnskit channels create)."
        case .badChannelId: return "apns-channel-id is not a channel id this bundle has: use the id the create call returned."
        case .channelNotRegistered: return "The channel does not exist (any more): create it again."
        case .invalidRequest: return "The channel management request is malformed: check the path and the JSON body."
        case .invalidPolicy: return "message-storage-policy must be 0 (no storage) or 1 (most recent message)."
        case .cannotCreateChannelConfig: return "The bundle already has the most channels allowed (10,000): delete unused ones."
        case .missingPushType: return "Broadcasts need apns-push-type: liveactivity."
        case .badCertificate: return "The client certificate is not an APNs push certificate: use the one Apple issued for this app, with its key."
        case .badCertificateEnvironment: return "The certificate is for the other environment: use a development certificate for the sandbox, a production one for production."
        case .expiredProviderToken: return "The provider token is older than an hour: make a new one (check this machine's clock)."
        case .forbidden: return "The key has been revoked or may not be used here: make a new key in the developer portal."
        case .invalidProviderToken: return "The provider token does not verify: check the key id, the team id and that the .p8 file is that key's."
        case .missingProviderToken: return "No client certificate and no authorization header: give a certificate or a .p8 key."
        case .unrelatedKeyIdInToken: return "This connection was opened with another key: keep one key per connection, or open a new one."
        case .badEnvironmentKeyIdInToken: return "The key is limited to the other environment: use it with that gateway, or make a key for both."
        case .badEnvironmentKeyInToken: return "The token was signed by a key limited to the other environment: sign with a key valid here."
        case .badPath: return "The path is wrong: POST notifications to /3/device/<token>."
        case .methodNotAllowed: return "Only POST is accepted for notifications."
        case .unregistered: return "The app was removed from the device (or notifications turned off): stop sending to this token."
        case .expiredToken: return "The token has expired: stop sending to it and wait for the app to register again."
        case .payloadTooLarge: return "The payload is over the limit (4096 bytes; 5120 for VoIP): send less, e.g. an id the app fetches details for."
        case .tooManyProviderTokenUpdates: return "A new provider token came less than 20 minutes after the last: reuse a token for 20 to 60 minutes."
        case .tooManyRequests: return "Too many notifications to this device too fast: slow down and retry later."
        case .internalServerError: return "The gateway failed: retry later with backoff."
        case .serviceUnavailable: return "The gateway is unavailable: retry later with backoff."
        case .shutdown: return "The gateway is shutting down this connection: reconnect and send again."
        default: return nil
        }
    }
}
