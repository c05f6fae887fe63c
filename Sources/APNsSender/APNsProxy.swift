// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsTransport
import Foundation

/// An HTTP proxy the client reaches the gateway through, as networks that allow no direct
/// outbound connection require: the client asks it to `CONNECT` to the gateway, then speaks TLS
/// through the tunnel and checks the gateway's certificate and name as usual (never the
/// proxy's). Basic credentials go in the URL; they never appear in descriptions, logs or errors.
public struct APNsProxy: Sendable, Equatable, CustomStringConvertible {
    let transport: HTTPProxy

    /// `http://[user:password@]host[:port]` (curl's form; the port defaults to 1080). Throws
    /// ``APNsSendError`` `.invalidConfiguration` for anything else, https:// proxies included.
    public init(url: String) throws(APNsSendError) {
        do {
            transport = try HTTPProxy(url: url)
        } catch {
            throw APNsSendError(.invalidConfiguration, (error as? TransportError)?.message ?? "\(error)")
        }
    }

    /// The proxy's host name or address.
    public var host: String { transport.host }
    /// The proxy's port (1080 when the URL gave none).
    public var port: Int { transport.port }

    /// `host:port`, or `user:***@host:port`.
    public var description: String { transport.description }

    /// The proxy the environment names for `host`, as curl reads it: `https_proxy` /
    /// `HTTPS_PROXY` (then `all_proxy` / `ALL_PROXY`), unless `no_proxy` / `NO_PROXY` lists the
    /// host (or `*`). Nil when none applies.
    public static func fromEnvironment(for host: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(APNsSendError) -> APNsProxy? {
        let found: HTTPProxy?
        do {
            found = try HTTPProxy.fromEnvironment(for: host, environment)
        } catch {
            throw APNsSendError(.invalidConfiguration, "The environment's proxy setting: \((error as? TransportError)?.message ?? "\(error)")")
        }
        return found.map(APNsProxy.init(transport:))
    }

    init(transport: HTTPProxy) { self.transport = transport }
}
