// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsTransport

// The configuration in the transport's terms, in one place: `APNsClient` and
// `APNsBroadcastClient` both build their connections from it.

extension APNsClient.Configuration.Gateway {
    /// The provider API endpoint (`port` applies to Apple's hosts only).
    func providerEndpoint(port: Int, proxy: APNsProxy? = nil) -> Endpoint {
        switch self {
        case .sandbox: return Endpoint(host: APNsEnvironment.sandbox.host, port: port, proxy: proxy?.transport)
        case .production: return Endpoint(host: APNsEnvironment.production.host, port: port, proxy: proxy?.transport)
        case .custom(let host, let port, _): return Endpoint(host: host, port: port, proxy: proxy?.transport)
        }
    }

    /// The channel management endpoint (apns-protocol.md §8): Apple's management host and port
    /// for Apple's gateways, the given host and port for a custom one.
    func managementEndpoint(proxy: APNsProxy?) -> Endpoint {
        var endpoint: Endpoint
        switch self {
        case .sandbox: endpoint = BroadcastRequest.managementEndpoint(.sandbox)
        case .production: endpoint = BroadcastRequest.managementEndpoint(.production)
        case .custom(let host, let port, _): endpoint = Endpoint(host: host, port: port)
        }
        endpoint.proxy = proxy?.transport
        return endpoint
    }
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
        HTTP2HealthCheck(idleInterval: healthCheckInterval?.seconds ?? 0, timeout: healthCheckTimeout.seconds)
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
