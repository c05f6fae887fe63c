// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// What a provider should change when the legacy binary gateway answers an error response
/// (apns-protocol.md §4): the legacy twin of `APNsReason.advice`, shown by the mock's inbox next
/// to a rejected frame.
extension LegacyStatus {
    package var advice: String? {
        switch self {
        case .noError: return nil
        case .processingError: return "The gateway failed to process the frame: send it again later on a new connection."
        case .missingToken: return "The frame has no device token item: send the 32-byte token."
        case .missingTopic: return "The certificate covers several topics and none was given: use a single-topic certificate for the legacy protocol."
        case .missingPayload: return "The frame has no payload item: send a JSON payload such as {\"aps\":{\"alert\":\"Hi\"}}."
        case .invalidTokenSize: return "The device token is not 32 bytes: the legacy protocol takes only 32-byte tokens (longer ones need the HTTP/2 API)."
        case .invalidTopicSize: return "The topic is too long: check the certificate's bundle id."
        case .invalidPayloadSize: return "The payload is over the legacy limit (256 bytes simple, 2048 framed): send less, or use the HTTP/2 API (4096)."
        case .invalidToken: return "The token is unknown or for the other environment: send sandbox tokens to the sandbox gateway, and drop tokens the feedback service lists."
        case .shutdown: return "The gateway is shutting down: the named frame was the last one processed; resend the later ones on a new connection."
        case .protocolError: return "The frame is malformed (unknown command or item): check the frame encoding."
        case .unknown: return nil
        }
    }
}
