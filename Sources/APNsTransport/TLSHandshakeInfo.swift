// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
internal import CShims
internal import COpenSSL
import Foundation

/// What a finished TLS handshake established, as the CLI's `verify` reports it.
package struct TLSHandshakeInfo: Sendable {
    /// The numeric address actually connected to, e.g. `127.0.0.1:2197`.
    package let remoteAddress: String
    /// `TLSv1.2`, `TLSv1.3`.
    package let protocolVersion: String
    /// OpenSSL's cipher name, e.g. `TLS_AES_256_GCM_SHA384`.
    package let cipher: String
    /// The ALPN protocol the server chose (`h2`), or nil when it chose none.
    package let alpn: String?
    /// The certificates the peer sent, leaf first.
    package let peerChain: [Certificate]
    /// Whether the chain verified against the trust store (independent of the host name).
    package let chainVerified: Bool
    /// OpenSSL's X509_V_* result code (0 = ok).
    package let verifyResult: Int
    /// OpenSSL's text for `verifyResult` when it is not ok ("certificate has expired").
    package let verifyError: String?
    /// The CA our trust store lacks, when the chain could not be anchored: the issuer of the
    /// last certificate the server sent (or that certificate, when it is a self-signed root).
    package let missingIssuer: String?
    /// Whether the leaf matches the host name (or IP address) we connected to; nil on servers.
    package let hostnameMatches: Bool?
    /// Client side: the server sent a CertificateRequest.
    package let clientCertificateRequested: Bool
    /// Client side: we had a certificate to present when asked.
    package let clientCertificateSent: Bool

    /// Reads everything from a connected `ssl`. `host` is what we connected to (client side).
    init(ssl: OpaquePointer, observations: shim_tls_observations, host: String?, remoteAddress: String, presentedIdentity: Bool) {
        self.remoteAddress = remoteAddress
        protocolVersion = String(cString: SSL_get_version(ssl))
        cipher = SSL_get_current_cipher(ssl).map { String(cString: SSL_CIPHER_get_name($0)) } ?? "unknown"
        var data: UnsafePointer<UInt8>? = nil
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        alpn = (data != nil && length > 0) ? String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self) : nil

        // A client's view of the stack includes the server's leaf; a server's view excludes the
        // client's leaf (and may hold CA certificates the client's OpenSSL added), so servers
        // put the peer certificate first themselves.
        var chain: [Certificate] = []
        let isServer = SSL_is_server(ssl) == 1
        if isServer, let leaf = SSL_get1_peer_certificate(ssl) {
            chain.append(Certificate(taking: leaf))
        }
        if let stack = SSL_get_peer_cert_chain(ssl) {
            for index in 0..<shim_sk_X509_num(stack) {
                if let cert = shim_sk_X509_value(stack, index) { chain.append(Certificate(retaining: cert)) }
            }
        }
        if chain.isEmpty, let leaf = SSL_get1_peer_certificate(ssl) {
            chain.append(Certificate(taking: leaf))
        }
        peerChain = chain

        let result = Int(SSL_get_verify_result(ssl))
        verifyResult = result
        chainVerified = result == Int(X509_V_OK) && !chain.isEmpty
        verifyError = result == Int(X509_V_OK) ? (chain.isEmpty ? "the server sent no certificate" : nil)
            : String(cString: X509_verify_cert_error_string(result))
        let anchorErrors = [X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
                            X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT].map(Int.init)
        if anchorErrors.contains(result), let last = chain.last {
            let name = last.isSelfIssued ? last.subject : last.issuer
            missingIssuer = name.commonName ?? name.first("O") ?? name.description
        } else {
            missingIssuer = nil
        }

        if let host, let leaf = chain.first {
            let isIP = Endpoint(host: host, port: 1).hostIsIPAddress
            hostnameMatches = leaf.withUnsafePointer { x509 in
                isIP ? X509_check_ip_asc(x509, host, 0) == 1 : X509_check_host(x509, host, host.utf8.count, 0, nil) == 1
            }
        } else {
            hostnameMatches = host == nil ? nil : false
        }
        clientCertificateRequested = observations.certificate_requested != 0
        clientCertificateSent = clientCertificateRequested && presentedIdentity
    }
}
