// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import Foundation

extension APNsClient {
    /// Everything an `APNsClient` is configured with, in one value (the shape of
    /// async-http-client's `HTTPClient.Configuration`): start from
    /// `Configuration(gateway:authentication:)` and set what differs from the defaults.
    ///
    /// ```swift
    /// var configuration = APNsClient.Configuration(gateway: .production, authentication: .token(signer))
    /// configuration.bundleID = "com.example.app"
    /// configuration.connections = 2
    /// let client = APNsClient(configuration: configuration, logger: logger)
    /// ```
    public struct Configuration: Sendable {
        /// Where notifications go.
        public enum Gateway: Sendable, Hashable {
            /// Apple's development gateway (`api.sandbox.push.apple.com`).
            case sandbox
            /// Apple's production gateway (`api.push.apple.com`).
            case production
            /// Any other HTTP/2 endpoint speaking the provider API: a mock gateway, a relay.
            /// `environment` says which of Apple's it stands in for (metrics are labelled with
            /// it; `custom` when nil).
            case custom(host: String, port: Int, environment: APNsEnvironment? = nil)

            /// Apple's gateway for `environment`.
            public static func apple(_ environment: APNsEnvironment) -> Gateway { environment == .sandbox ? .sandbox : .production }
        }

        /// What the gateway's certificate chain must lead to.
        public enum Trust: Sendable, Hashable {
            /// The system's CA store (Apple's gateways chain to a public root).
            case system
            /// Only the CA certificates in this PEM file (a mock gateway's CA bundle).
            case caFile(String)
            /// Only the CA certificates in this PEM text (an in-process mock gateway's CA, a
            /// bundle from a secret store): no file needed.
            case caPEM(String)
        }

        /// Apple's sandbox or production gateway, or a custom one (a mock, a relay).
        public var gateway: Gateway
        /// 443, or 2197 where a firewall blocks 443 (Apple's gateways only; a custom gateway
        /// names its own port).
        public var port: Int = APNsEnvironment.providerPorts[0]
        /// The CAs the gateway's certificate must chain to: the system store for Apple's gateways,
        /// a mock's own CA otherwise.
        public var trust: Trust = .system
        /// Reach the gateway through this HTTP proxy (CONNECT); nil: directly. Not taken from
        /// the environment by itself: ``APNsProxy/fromEnvironment(for:environment:)`` reads it
        /// as curl does, for a service that wants that.
        public var proxy: APNsProxy?
        /// How the client proves it may send: a certificate identity or a .p8 token key.
        public var authentication: Authentication
        /// The app's bundle id: notifications without a topic get it plus their push type's
        /// suffix (`.voip`, `.push-type.liveactivity`, ...). Taken from the certificate with
        /// certificate authentication when nil; needed with token authentication unless every
        /// notification names its topic.
        public var bundleID: String?
        /// Connections to the gateway (each a TLS + HTTP/2 connection).
        public var connections: Int = 1
        /// Threads the connections run on (at most one per core); see docs/benchmarks.md
        /// for why one is the default.
        public var eventLoops: Int = 1
        /// Requests in flight per connection: single sends wait for a free slot of this window
        /// before they are written (a batch has a window of its own).
        public var concurrency: Int = 100
        /// How long one connect (TCP, TLS, HTTP/2 settings) may take before it counts as failed and
        /// the retry policy's reconnect back-off applies.
        public var connectTimeout: Duration = .seconds(10)
        /// How long a written request may wait for its answer before it counts as lost.
        public var requestTimeout: Duration = .seconds(30)
        /// When retryable answers and failed connects are tried again, and when the gateway counts as
        /// down (`APNsRetryPolicy`).
        public var retryPolicy = APNsRetryPolicy()
        /// A connection quiet this long is pinged; one that does not answer within
        /// `healthCheckTimeout` is replaced before a send needs it. `nil`: never pinged.
        public var healthCheckInterval: Duration? = .seconds(60)
        /// How long a health-check PING may go unanswered before the connection is closed: a NAT box
        /// that forgot the connection is found here, not by a request's deadline.
        public var healthCheckTimeout: Duration = .seconds(10)
        /// Opt-in: try BadDeviceToken notifications once against the other environment
        /// (`TokenDiagnosis`; this DELIVERS them there where the token is valid). Nil: off.
        public var tokenDiagnosis: TokenDiagnosis?

        /// The two settings without a sensible default; everything else starts at the values above.
        public init(gateway: Gateway, authentication: Authentication) {
            self.gateway = gateway
            self.authentication = authentication
        }

        /// The environment metrics are labelled with, nil for a custom gateway that names none.
        var environment: APNsEnvironment? {
            switch gateway {
            case .sandbox: return .sandbox
            case .production: return .production
            case .custom(_, _, let environment): return environment
            }
        }
    }
}

extension Duration {
    /// Seconds as a `Double`, for the transport's timers.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
