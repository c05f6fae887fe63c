// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// An APNs environment: the sandbox (api.sandbox.push.apple.com) or production.
public enum APNsEnvironment: String, Sendable, Codable, CaseIterable {
    /// Development builds' tokens and development certificates: `api.sandbox.push.apple.com`.
    case sandbox
    /// App Store, TestFlight and ad hoc builds' tokens: `api.push.apple.com`.
    case production
}

/// Apple's gateways per environment: the package's one list of their host names and ports
/// (apns-protocol.md §1, §4, §5, §8). The sender connects to them and the CLI's
/// `--environment` and `--port` choose among them.
extension APNsEnvironment {
    /// The HTTP/2 provider API (§1).
    public var host: String { self == .sandbox ? "api.sandbox.push.apple.com" : "api.push.apple.com" }
    /// The provider API's ports, the default first: 443, or 2197 where a firewall blocks 443 (§1).
    package static let providerPorts = [443, 2197]
    /// The legacy binary gateway (§4).
    package var legacyHost: String { self == .sandbox ? "gateway.sandbox.push.apple.com" : "gateway.push.apple.com" }
    package static let legacyPort = 2195
    /// The legacy feedback service (§5).
    package var feedbackHost: String { self == .sandbox ? "feedback.sandbox.push.apple.com" : "feedback.push.apple.com" }
    package static let feedbackPort = 2196
    /// Broadcast channel management (§8): a host of its own, on port 2195 in the sandbox and
    /// 2196 in production.
    package var channelManagementHost: String {
        self == .sandbox ? "api-manage-broadcast.sandbox.push.apple.com" : "api-manage-broadcast.push.apple.com"
    }
    package var channelManagementPort: Int { self == .sandbox ? 2195 : 2196 }

    /// Every name Apple serves this environment under: the provider API (and, for the sandbox,
    /// api.development, the name its certificate carries and some clients connect to, §1),
    /// channel management, the legacy gateway and feedback. The mock's server certificate
    /// carries them all, so a client can reach it by the real names over SNI.
    package var hostNames: [String] {
        (self == .sandbox ? [host, "api.development.push.apple.com"] : [host]) + [channelManagementHost, legacyHost, feedbackHost]
    }
}
