// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore

/// What a TLS endpoint (client or server) presents and what it accepts.
///
/// Defaults: verification on (chain + host name), TLS 1.2 minimum, ALPN h2, what an HTTP/2
/// client of a public service needs; a caller with other rules passes them.
package struct TLSConfiguration: Sendable {
    /// Where the certificates that anchor trust come from.
    package enum Trust: Sendable, Equatable {
        /// OpenSSL's default verify paths (the system trust store, /etc/ssl/certs).
        case system
        /// PEM file(s) with CA certificates, e.g. `--ca-file` or the mock gateway's CA.
        case caFile(String)
        /// CA certificates held in memory as PEM text: the in-process mock gateway's CA, which
        /// no file on disk holds (an in-process test server).
        case certificates(pem: [UInt8])
    }

    /// How the peer's certificate is checked.
    package enum Verification: Sendable, Equatable {
        /// Chain and host name are checked in the handshake; a failure aborts it.
        case full
        /// The handshake always proceeds; the outcome is recorded in `TLSHandshakeInfo` so a
        /// diagnostic tool (the CLI's `verify`) can report it. Callers must look at the result.
        case reportOnly
        /// No checks at all (an `--insecure` escape hatch; callers must warn).
        case none
    }

    package enum Version: Sendable, Comparable {
        case tls1_0, tls1_1, tls1_2, tls1_3

        var openssl: Int32 {
            switch self {
            case .tls1_0: return 0x301
            case .tls1_1: return 0x302
            case .tls1_2: return 0x303
            case .tls1_3: return 0x304
            }
        }
    }

    package var trust: Trust
    package var verification: Verification
    /// The certificate (and chain) we present: a client certificate on a client, the
    /// server certificate on a server.
    package var identity: TLSIdentity?
    package var minimumVersion: Version
    package var maximumVersion: Version?
    /// ALPN protocols a client offers, most preferred first. Servers select `h2` when offered.
    package var applicationProtocols: [String]
    /// Server only: require and verify a client certificate against `trust`.
    package var requireClientCertificate: Bool
    /// Server only: ask for a client certificate and verify it against `trust` if one is sent,
    /// but let clients without one in (the provider API takes certificates or tokens).
    package var requestClientCertificate = false

    package init(trust: Trust = .system, verification: Verification = .full, identity: (any TLSIdentityConvertible)? = nil,
                minimumVersion: Version = .tls1_2, maximumVersion: Version? = nil,
                applicationProtocols: [String] = ["h2"], requireClientCertificate: Bool = false) {
        self.trust = trust
        self.verification = verification
        self.identity = identity?.tlsIdentity
        self.minimumVersion = minimumVersion
        self.maximumVersion = maximumVersion
        self.applicationProtocols = applicationProtocols
        self.requireClientCertificate = requireClientCertificate
    }

    /// A client that presents `identity` and trusts `trust`, speaking h2.
    package static func client(identity: (any TLSIdentityConvertible)?, trust: Trust = .system, verification: Verification = .full) -> TLSConfiguration {
        TLSConfiguration(trust: trust, verification: verification, identity: identity)
    }

    /// A server presenting `identity`; with `clientCA` it requires client certificates issued
    /// by that CA.
    package static func server(identity: any TLSIdentityConvertible, clientCA: String? = nil) -> TLSConfiguration {
        server(identity: identity, clientTrust: clientCA.map { .caFile($0) })
    }

    /// A server presenting `identity`; with `clientTrust` it requires client certificates that
    /// chain to it (a CA file, or certificates in memory).
    package static func server(identity: any TLSIdentityConvertible, clientTrust: Trust?) -> TLSConfiguration {
        TLSConfiguration(trust: clientTrust ?? .system, verification: clientTrust == nil ? .none : .full,
                         identity: identity, requireClientCertificate: clientTrust != nil)
    }
}
