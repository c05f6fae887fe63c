// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import APNsProtocol
import Foundation

/// What the portal's Keys page offers since 2025 (apns-protocol.md §8): a team key for both
/// environments and every topic, a key for one environment, or a key for some topics only.
/// `mock issue --auth-key --scope` makes such keys; `--key-scope` tells the sender what a key
/// is, so it refuses locally what APNs would refuse.
package enum TokenKeyScope: Sendable, Equatable {
    case team
    case environment(APNsEnvironment)
    case topics([String])

    /// `team`, `sandbox`, `production` or `topics:A,B`; nil for anything else.
    package init?(argument: String) {
        switch argument {
        case "team": self = .team
        case "sandbox": self = .environment(.sandbox)
        case "production": self = .environment(.production)
        default:
            guard argument.hasPrefix("topics:") else { return nil }
            let topics = argument.dropFirst("topics:".count).split(separator: ",").map(String.init)
            // Bundle ids by Apple's rule (apns-protocol.md §8), each once: the portal lists a
            // key's topics as a set, and a typo would make a key that APNs never issues.
            guard !topics.isEmpty, topics.allSatisfy(BundleIdentifier.isValid), Set(topics).count == topics.count else { return nil }
            self = .topics(topics)
        }
    }

    package var environments: [APNsEnvironment]? {
        if case .environment(let environment) = self { return [environment] }
        return nil
    }

    package var topics: [String]? {
        if case .topics(let topics) = self { return topics }
        return nil
    }

    /// APNs' answer to using this key in `environment` for `topic`, as a sentence with the
    /// reason in it; nil when APNs would accept it.
    package func refusal(environment: APNsEnvironment, topic: String?) -> String? {
        if case .environment(let allowed) = self, allowed != environment {
            return "the key is limited to \(allowed.rawValue), and APNs refuses it in \(environment.rawValue) with 403 BadEnvironmentKeyIdInToken"
        }
        if case .topics(let topics) = self, let topic, !Self.covers(topics, topic: topic) {
            return "the key is limited to \(topics.joined(separator: ", ")), and APNs refuses it for \(topic) with 400 TopicDisallowed"
        }
        return nil
    }

    /// Whether a topic-specific key for `topics` may push to `topic`: one of its bundle ids, or
    /// a push-type topic under one (`<bundle>.voip`, `<bundle>.push-type.liveactivity`, ...).
    package static func covers(_ topics: [String], topic: String) -> Bool {
        topics.contains { topic == $0 || topic.hasPrefix($0 + ".") }
    }
}
