// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// `apns-push-type` values, the payload limit that goes with each, and the topic suffix APNs
/// expects (VoIP pushes go to `<bundle>.voip`, and so on).
public enum APNsPushType: String, Sendable, CaseIterable, Codable {
    /// Shows an alert, plays a sound or sets the badge (`APNsAlertPayload`).
    case alert
    /// Wakes the app in the background without showing anything; APNs wants priority 5 for it
    /// and throttles it (`APNsBackgroundPayload`).
    case background
    /// Asks a Location Push Service extension for the device's location (topic `.location-query`).
    case location
    /// Wakes a VoIP app through PushKit to report an incoming call (topic `.voip`, 5,120 bytes).
    case voip
    /// Updates a watchOS complication (topic `.complication`).
    case complication
    /// Tells a File Provider extension that content changed (topic `.pushkit.fileprovider`).
    case fileprovider
    /// Tells a managed device to check in with its MDM server; sent with the MDM push certificate.
    case mdm
    /// Starts, updates or ends a Live Activity (topic `.push-type.liveactivity`, apns-protocol.md §8).
    case liveactivity
    /// Wakes a Push to Talk app for incoming audio (topic `.voip-ptt`).
    case pushtotalk
    /// Tells widgets to reload their timelines (topic `.push-type.widgets`).
    case widgets

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
    /// 10: deliver now; the default for alerts, and APNs' default when the header is missing.
    case immediate = 10
    /// 5: deliver when it suits the device's power; the only priority background pushes may use.
    case conservePower = 5
    /// 1: the device's power before everything else: delivered when it is awake, never waking it.
    case low = 1
}
