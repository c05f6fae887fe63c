// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
extension APNsBroadcastClient {
    /// An `APNsClient.Configuration` (gateway, trust, authentication, bundle id, connections,
    /// concurrency, timeouts, retry policy, health check: the same meaning for broadcasts as
    /// for device sends) plus where channel management calls go, which is a host and port of
    /// its own (apns-protocol.md §8).
    ///
    /// ```swift
    /// var provider = APNsClient.Configuration(gateway: .production, authentication: .token(signer))
    /// provider.bundleID = "com.example.app"
    /// let client = try APNsBroadcastClient(configuration: .init(provider))
    /// ```
    public struct Configuration: Sendable {
        /// Broadcasts go to `provider.gateway`; everything else in it applies to both APIs.
        public var provider: APNsClient.Configuration
        /// Where channel management calls go: `.sandbox` and `.production` mean Apple's
        /// management hosts (`api-manage-broadcast[.sandbox].push.apple.com`, ports 2195 and
        /// 2196); `.custom` any host and port (a mock's `--channels-port`). Nil: channel calls
        /// fail with `invalidConfiguration`.
        public var channelManagement: APNsClient.Configuration.Gateway?

        /// `channelManagement` defaults to Apple's management host of `provider.gateway`'s
        /// environment; a custom provider gateway has none unless one is given.
        public init(_ provider: APNsClient.Configuration, channelManagement: APNsClient.Configuration.Gateway? = nil) {
            self.provider = provider
            if let channelManagement {
                self.channelManagement = channelManagement
            } else {
                self.channelManagement = provider.gateway.isApple ? provider.gateway : nil
            }
        }
    }
}
