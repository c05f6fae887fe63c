// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import CShims
internal import COpenSSL

/// Owns one `SSL_CTX*`: the configuration shared by all connections of one role.
///
/// `@unchecked Sendable`: after `init` the context is only read (OpenSSL documents SSL_CTX as
/// safe to share between threads once configured): this type has no configuring call after
/// `init`, and connections reach the context only through `withUnsafePointer`, to make their
/// `SSL*` (`SSL_new`, which takes a reference under OpenSSL's lock). The SSL objects made from
/// it stay on one loop.
final class SSLContext: OpenSSLObjectOwner, @unchecked Sendable {
    private let pointer: OpaquePointer
    let isServer: Bool
    let configuration: TLSConfiguration

    init(_ configuration: TLSConfiguration, server: Bool) throws {
        // The process's providers are in place before the first context fetches algorithms
        // (OpenSSLProviders says why the order matters).
        OpenSSLProviders.ensureLoaded()
        OpenSSLErrorQueue.clear()
        guard let ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method()) else {
            throw TransportError.openssl(.internalFailure, "OpenSSL could not create a TLS context.")
        }
        pointer = ctx
        isServer = server
        self.configuration = configuration

        guard shim_SSL_CTX_set_min_proto_version(ctx, configuration.minimumVersion.openssl) == 1 else {
            throw TransportError.openssl(.configuration, "OpenSSL refused the minimum TLS version.")
        }
        if configuration.minimumVersion < .tls1_2 {
            // Old protocol versions need the legacy security level (tests of "TLS 1.0 only" peers).
            SSL_CTX_set_security_level(ctx, 0)
        }
        if let max = configuration.maximumVersion {
            _ = shim_SSL_CTX_set_max_proto_version(ctx, max.openssl)
        }
        // Buffers are kept while a connection is busy: OpenSSL's SSL_MODE_RELEASE_BUFFERS frees
        // them after every record, seven allocations per request on a connection with one
        // stream at a time (docs/benchmarks.md, the 500-connection row). A server hands a
        // quiet connection's buffers back instead (`Connection.releaseIdleBuffers`).
        _ = shim_SSL_CTX_set_mode(ctx, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        // Every read drains OpenSSL's buffer until it wants more (Connection.readAvailable), so
        // records read ahead are never left waiting for a poll() that will not come.
        shim_SSL_CTX_set_read_ahead(ctx, 1)
        shim_SSL_CTX_install_observers(ctx)

        if let identity = configuration.identity {
            guard identity.certificate.withUnsafePointer({ SSL_CTX_use_certificate(ctx, $0) }) == 1,
                  identity.privateKey.withUnsafePointer({ SSL_CTX_use_PrivateKey(ctx, $0) }) == 1 else {
                throw TransportError.openssl(.configuration, "OpenSSL would not use the certificate and key for TLS.")
            }
            for cert in identity.chain where cert.withUnsafePointer({ shim_SSL_CTX_add1_chain_cert(ctx, $0) }) != 1 {
                throw TransportError.openssl(.configuration, "OpenSSL would not add a chain certificate for TLS.")
            }
        }

        let verifyPeer = configuration.verification != .none
            || (server && (configuration.requireClientCertificate || configuration.requestClientCertificate))
        if verifyPeer || configuration.verification == .reportOnly {
            switch configuration.trust {
            case .system:
                guard SSL_CTX_set_default_verify_paths(ctx) == 1 else {
                    throw TransportError.openssl(.configuration, "OpenSSL could not load the system trust store.")
                }
            case .caFile(let path):
                guard SSL_CTX_load_verify_locations(ctx, path, nil) == 1 else {
                    throw TransportError.openssl(.configuration, "Could not read CA certificates from \(path).")
                }
                if server {
                    guard let names = SSL_load_client_CA_file(path) else {
                        throw TransportError.openssl(.configuration, "Could not read the client CA names from \(path).")
                    }
                    SSL_CTX_set_client_CA_list(ctx, names)
                }
            case .certificates(let pem):
                try Self.trust(pem, in: ctx, server: server)
            }
        }

        if server {
            shim_SSL_CTX_select_alpn_h2(ctx)
            if configuration.requireClientCertificate {
                SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
            } else if configuration.requestClientCertificate {
                SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
            } else {
                SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
            }
        } else {
            SSL_CTX_set_verify(ctx, configuration.verification == .full ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)
            if !configuration.applicationProtocols.isEmpty {
                var wire: [UInt8] = []
                for proto in configuration.applicationProtocols {
                    wire.append(UInt8(proto.utf8.count))
                    wire += Array(proto.utf8)
                }
                guard SSL_CTX_set_alpn_protos(ctx, wire, UInt32(wire.count)) == 0 else {
                    throw TransportError.openssl(.internalFailure, "OpenSSL refused the ALPN protocol list.")
                }
            }
        }
    }

    deinit { SSL_CTX_free(pointer) }

    /// Lends the `SSL_CTX` to `body` (`lendOpenSSLObject`); the pointer must not outlive the call.
    func withUnsafePointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try lendOpenSSLObject(pointer, of: self, to: body)
    }

    /// Adds every certificate of `pem` to the context's trust store (and, on a server, to the
    /// CA names it sends when asking for a client certificate), as `caFile` does from a file.
    private static func trust(_ pem: [UInt8], in ctx: OpaquePointer, server: Bool) throws {
        let label = "the trusted CA certificates given as PEM text"
        let certificates: [Certificate]
        do {
            certificates = try PEMScanner.blocks(in: pem, label: label).filter { $0.kind == .certificate }
                .map { try Certificate(pem: $0.text, label: label) }
        } catch let error as CredentialError {
            throw TransportError.openssl(.configuration, error.description)
        }
        guard !certificates.isEmpty, let store = SSL_CTX_get_cert_store(ctx) else {
            throw TransportError.openssl(.configuration, "\(label) hold no certificate; give the CA's certificates as PEM blocks (-----BEGIN CERTIFICATE-----).")
        }
        for certificate in certificates {
            // OpenSSL takes its own reference in both calls; a duplicate is not an error.
            let added = certificate.withUnsafePointer { x509 in
                X509_STORE_add_cert(store, x509) == 1 && (!server || SSL_CTX_add_client_CA(ctx, x509) == 1)
            }
            guard added else {
                throw TransportError.openssl(.configuration, "OpenSSL would not trust a certificate of \(label).")
            }
        }
    }
}
