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
    /// configuration.pool.connections = 2
    /// configuration.timeouts.request = .seconds(10)
    /// let client = try APNsClient(configuration: configuration, logger: logger)
    /// ```
    public struct Configuration: Sendable {
        /// Where notifications go: a host and a port, named once. `.sandbox` and `.production`
        /// are Apple's gateways on 443, `.apple(_:port:)` one of them on 2197 where a firewall
        /// blocks 443, `.custom(host:port:environment:)` anything else speaking the provider
        /// API (a mock gateway, a relay).
        public struct Gateway: Sendable, Hashable {
            /// Apple's two ports for the provider API (apns-protocol.md §1).
            public enum ApplePort: Int, Sendable, Hashable, CaseIterable {
                /// 443, the HTTPS port.
                case standard = 443
                /// 2197, for networks that block outgoing 443.
                case alternative = 2197
            }

            /// The host name (or address) connected to and checked in the gateway's certificate.
            public let host: String
            /// The TCP port.
            public let port: Int
            /// Which of Apple's environments this gateway is or stands in for: metrics are labelled
            /// with it (`custom` when nil) and token diagnosis tries the other one.
            public let environment: APNsEnvironment?
            /// True for Apple's own gateways: their channel management host and the other
            /// environment's gateway are known without being named.
            public let isApple: Bool

            /// Apple's development gateway (`api.sandbox.push.apple.com:443`).
            public static let sandbox = apple(.sandbox)
            /// Apple's production gateway (`api.push.apple.com:443`).
            public static let production = apple(.production)

            /// Apple's gateway for `environment`, on `port`.
            public static func apple(_ environment: APNsEnvironment, port: ApplePort = .standard) -> Gateway {
                Gateway(host: environment.host, port: port.rawValue, environment: environment, isApple: true)
            }

            /// Any other HTTP/2 endpoint speaking the provider API: a mock gateway, a relay.
            /// `environment` says which of Apple's it stands in for (nil: neither). The port must be
            /// 1 to 65535 and the host not empty; the client refuses the configuration otherwise.
            public static func custom(host: String, port: Int, environment: APNsEnvironment? = nil) -> Gateway {
                Gateway(host: host, port: port, environment: environment, isApple: false)
            }

            private init(host: String, port: Int, environment: APNsEnvironment?, isApple: Bool) {
                self.host = host
                self.port = port
                self.environment = environment
                self.isApple = isApple
            }
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

        /// How many connections, on how many threads, with how many requests in flight each.
        public struct Pool: Sendable, Hashable {
            /// Connections to the gateway (each a TLS + HTTP/2 connection): 1 to 64.
            public var connections: Int = 1
            /// Threads the connections run on (at most one per core): 1 to 64; see
            /// docs/benchmarks.md for why one is the default.
            public var eventLoops: Int = 1
            /// Requests in flight per connection, 1 to 10,000: single sends wait for a free slot of
            /// this window before they are written (a batch has a window of its own).
            public var concurrency: Int = 100

            /// The allowed connections and event loops: more connections than this spread no
            /// further over APNs' front ends, and each costs a TLS handshake and its memory.
            public static let connectionsRange = 1...64
            /// The allowed requests in flight per connection (APNs itself allows about 1,000 per
            /// connection once a request succeeded; more only queue at the gateway).
            public static let concurrencyRange = 1...10_000

            /// One connection on one loop with a window of 100.
            public init(connections: Int = 1, eventLoops: Int = 1, concurrency: Int = 100) {
                self.connections = connections
                self.eventLoops = eventLoops
                self.concurrency = concurrency
            }
        }

        /// How long each step may take before it counts as failed.
        public struct Timeouts: Sendable, Hashable {
            /// One connect (TCP, TLS, HTTP/2 settings); past it the retry policy's reconnect
            /// back-off applies.
            public var connect: Duration = .seconds(10)
            /// A written request waiting for its answer; past it the request counts as lost.
            public var request: Duration = .seconds(30)
            /// A connection quiet this long is pinged; one that does not answer within
            /// `healthCheck` is replaced before a send needs it. `nil`: never pinged.
            public var idlePing: Duration? = .seconds(60)
            /// How long a health-check PING may go unanswered before the connection is closed: a
            /// NAT box that forgot the connection is found here, not by a request's deadline.
            public var healthCheck: Duration = .seconds(10)

            /// 10 s to connect, 30 s per request, a ping after 60 s of quiet answered within 10 s.
            public init(connect: Duration = .seconds(10), request: Duration = .seconds(30), idlePing: Duration? = .seconds(60),
                        healthCheck: Duration = .seconds(10)) {
                self.connect = connect
                self.request = request
                self.idlePing = idlePing
                self.healthCheck = healthCheck
            }
        }

        /// Apple's sandbox or production gateway, or a custom one (a mock, a relay).
        public var gateway: Gateway
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
        /// suffix (`.voip`, `.push-type.liveactivity`, ...); a notification's own topic wins.
        /// Taken from the certificate with certificate authentication when nil; required with
        /// token authentication (a token key serves every app of the team, so only this says
        /// which one: without it every send would come back 400 MissingTopic).
        public var bundleID: String?
        /// Connections, their threads and the requests in flight on each.
        public var pool = Pool()
        /// Connect, request and health-check limits.
        public var timeouts = Timeouts()
        /// When retryable answers and failed connects are tried again, and when the gateway counts
        /// as down.
        public var retry = APNsRetryPolicy()
        /// Opt-in: try BadDeviceToken notifications once against the other environment
        /// (`TokenDiagnosis`; this DELIVERS them there where the token is valid). Nil: off.
        public var tokenDiagnosis: TokenDiagnosis?

        /// The two settings without a sensible default; everything else starts at the values above.
        public init(gateway: Gateway, authentication: Authentication) {
            self.gateway = gateway
            self.authentication = authentication
        }

        /// The environment metrics are labelled with, nil for a custom gateway that names none.
        var environment: APNsEnvironment? { gateway.environment }

        /// The first mistake that makes this configuration unusable, as an
        /// `invalidConfiguration` error naming the setting; nil when it is usable. The clients
        /// call it when they are made, so a mistake fails there, not on every send.
        public func problem() -> APNsSendError? { problem(alsoChecking: []) }

        /// `problem()`, with more gateways to check (the broadcast client's channel management).
        func problem(alsoChecking otherGateways: [Gateway]) -> APNsSendError? {
            func invalid(_ sentence: String) -> APNsSendError { APNsSendError(.invalidConfiguration, sentence) }
            for gateway in [gateway] + [tokenDiagnosis?.gateway].compactMap({ $0 }) + otherGateways {
                if gateway.host.isEmpty { return invalid("The gateway's host is empty: name the host to connect to.") }
                if !(1...65_535).contains(gateway.port) {
                    return invalid("The gateway port \(gateway.port) is not a TCP port: use 1 to 65535.")
                }
            }
            if case .token = authentication, (bundleID ?? "").isEmpty {
                return invalid("Token authentication needs Configuration.bundleID, the app notifications go to: a token key serves every app of the team, so nothing else says which (a notification's own topic still wins).")
            }
            if let bundleID, bundleID.isEmpty { return invalid("Configuration.bundleID is empty: give the app's bundle id, or nil to take the certificate's.") }
            let limits = [("pool.connections", pool.connections, Pool.connectionsRange), ("pool.eventLoops", pool.eventLoops, Pool.connectionsRange),
                          ("pool.concurrency", pool.concurrency, Pool.concurrencyRange)]
            for (name, value, range) in limits where !range.contains(value) {
                return invalid("Configuration.\(name) is \(value): use \(range.lowerBound) to \(range.upperBound).")
            }
            let timeouts: [(String, Duration?)] = [("timeouts.connect", self.timeouts.connect), ("timeouts.request", self.timeouts.request),
                                                   ("timeouts.idlePing", self.timeouts.idlePing), ("timeouts.healthCheck", self.timeouts.healthCheck)]
            for case let (name, value?) in timeouts where value <= .zero {
                return invalid("Configuration.\(name) is \(value): give a positive duration.")
            }
            let delays = [("retry.baseDelay", retry.baseDelay), ("retry.maximumDelay", retry.maximumDelay),
                          ("retry.outageDelay", retry.outageDelay), ("retry.maximumOutageDelay", retry.maximumOutageDelay)]
            for (name, value) in delays where value < .zero {
                return invalid("Configuration.\(name) is \(value): give zero or a positive duration.")
            }
            if retry.maximumAttempts < 1 { return invalid("Configuration.retry.maximumAttempts is \(retry.maximumAttempts): at least 1 (one attempt, no retries).") }
            if retry.maximumReconnects < 0 { return invalid("Configuration.retry.maximumReconnects is \(retry.maximumReconnects): 0 or more.") }
            if let limit = tokenDiagnosis?.limit, limit < 0 { return invalid("Configuration.tokenDiagnosis.limit is \(limit): 0 or more.") }
            return nil
        }
    }
}

extension Duration {
    /// Seconds as a `Double`, for the transport's timers.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
