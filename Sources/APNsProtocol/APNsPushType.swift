// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// `apns-push-type` values, the payload limit that goes with each, and the topic suffix APNs
/// expects (VoIP pushes go to `<bundle>.voip`, and so on).
public enum APNsPushType: String, Sendable, CaseIterable, Codable {
    case alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk, widgets

    /// Maximum payload bytes: 5120 for VoIP, 4096 for everything else.
    public var payloadLimit: Int { self == .voip ? 5120 : 4096 }

    /// What is appended to the bundle id to form the topic for this push type.
    public var topicSuffix: String {
        switch self {
        case .voip: return ".voip"
        case .complication: return ".complication"
        case .fileprovider: return ".pushkit.fileprovider"
        case .location: return ".location-query"
        case .liveactivity: return ".push-type.liveactivity"
        case .pushtotalk: return ".voip-ptt"
        case .widgets: return ".push-type.widgets"
        case .alert, .background, .mdm: return ""
        }
    }
}

/// `apns-priority`: 10 delivers now, 5 conserves power, 1 is lowest.
public enum APNsPriority: Int, Sendable, CaseIterable, Codable {
    case immediate = 10
    case conservePower = 5
    case low = 1
}
