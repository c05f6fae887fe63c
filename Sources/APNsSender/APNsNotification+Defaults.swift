// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol

/// The defaults APNs rules imply for headers a caller left out (apns-protocol.md §1): the topic
/// is the app's bundle id plus the push type's suffix (`.voip`, `.complication`, ...), and a
/// background push must go at priority 5 (APNs refuses 10 for it). The sender applies them to
/// every notification, so library users and the CLI get the same requests.
extension APNsNotification {
    /// `bundleID` with `pushType`'s topic suffix, unless it has it already.
    public static func topic(bundleID: String, pushType: APNsPushType?) -> String {
        let suffix = (pushType ?? .alert).topicSuffix
        return bundleID.hasSuffix(suffix) ? bundleID : bundleID + suffix
    }

    /// The priority to send when none was chosen: 5 for background pushes, else nil (APNs
    /// then uses 10).
    public static func defaultPriority(for pushType: APNsPushType?) -> APNsPriority? {
        pushType == .background ? .conservePower : nil
    }

    /// This notification with a missing topic (from `bundleID`, the certificate's) and a
    /// missing priority filled in.
    public func withDefaults(bundleID: String?) -> APNsNotification {
        filledDefaults(bundleID: bundleID)
    }

    /// `withDefaults`, filled in place: the sender's run hands over a notification it owns,
    /// so it is not copied (a retain and a release of each of its fields per notification).
    consuming func filledDefaults(bundleID: String?) -> APNsNotification {
        if topic == nil, let bundleID { topic = Self.topic(bundleID: bundleID, pushType: pushType) }
        if priority == nil { priority = Self.defaultPriority(for: pushType) }
        // Moved out: a plain `return self` copied the notification and destroyed the original.
        return consume self
    }
}
