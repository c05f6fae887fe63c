// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsTransport

// The configuration in the transport's terms, in one place: `APNsClient` and
// `APNsBroadcastClient` both build their connections from it.

extension APNsClient.Configuration.Gateway {
    /// The provider API endpoint.
    func providerEndpoint(proxy: APNsProxy? = nil) -> Endpoint {
        Endpoint(host: host, port: port, proxy: proxy?.transport)
    }
    /// The channel management endpoint (apns-protocol.md §8): Apple's management host and port
    /// for Apple's gateways, the given host and port for a custom one.
    func managementEndpoint(proxy: APNsProxy?) -> Endpoint {
        var endpoint = isApple ? BroadcastRequest.managementEndpoint(environment ?? .production) : Endpoint(host: host, port: port)
        endpoint.proxy = proxy?.transport
        return endpoint
    }
    /// The port as one of Apple's (443 for any other: an Apple gateway is made only on those).
    var applePort: ApplePort { ApplePort(rawValue: port) ?? .standard }
}

extension APNsClient.Configuration {
    var transportTrust: TLSConfiguration.Trust {
        switch trust {
        case .system: return .system
        case .caFile(let path): return .caFile(path)
        case .caPEM(let text): return .certificates(pem: Array(text.utf8))
        }
    }

    var transportHealthCheck: HTTP2HealthCheck {
        HTTP2HealthCheck(idleInterval: timeouts.idlePing?.seconds ?? 0, timeout: timeouts.healthCheck.seconds)
    }
}

extension APNsClient.Authentication {
    /// The identity presented in the TLS handshake (certificate trust).
    var identity: APNsIdentity? {
        if case .certificate(let identity) = self { return identity }
        return nil
    }

    /// A token cache for token trust: one token for every request of the client.
    func tokenCache() -> ProviderTokenCache? {
        if case .token(let signer) = self { return ProviderTokenCache(signer: signer) }
        return nil
    }
}

extension HTTP2ProviderConnector {
    /// Connections to `endpoint` with `authentication`'s TLS identity, connection n on loop
    /// n mod `eventLoops` (at most one loop per core).
    init(endpoint: Endpoint, trust: TLSConfiguration.Trust, authentication: APNsClient.Authentication, connectTimeout: Double,
         requestTimeout: Double, healthCheck: HTTP2HealthCheck, eventLoops: Int) {
        self.init(endpoint: endpoint, tls: .client(identity: authentication.identity, trust: trust), connectTimeout: connectTimeout,
                  requestTimeout: requestTimeout, healthCheck: healthCheck, loops: EventLoop.sharedLoops(count: eventLoops))
    }
}
