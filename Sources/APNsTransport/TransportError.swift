// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore

/// The one error type the transport throws.
///
/// `kind` lets callers (the CLI's exit codes, the sender's retry logic) decide without parsing
/// text; `message` is one sentence naming what failed; `details` carries OpenSSL's error queue
/// for `--verbose`.
package struct TransportError: Error, CustomStringConvertible, Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// The host name did not resolve.
        case dns
        /// TCP connect failed (refused, unreachable).
        case connect
        /// Nothing happened within the allowed time.
        case timeout
        /// The TLS handshake failed for a reason on our side or the server's (version, cipher,
        /// untrusted chain, host name).
        case tls
        /// Client side, full verification: the server's chain does not verify against the
        /// trust store or its certificate is for another host name.
        case untrustedServer(ServerTrustFailure)
        /// The peer ended the handshake (or the first read) with a TLS alert; `alert` names it.
        case tlsAlert(TLSAlert)
        /// The HTTP proxy refused the tunnel (`status`: its answer to CONNECT, e.g. 407, 403,
        /// 502), or answered something that is not HTTP; 0 when it closed without an answer.
        case proxy(status: Int)
        /// The server did not agree to HTTP/2 or broke the protocol.
        case protocolError
        /// The stream was reset by the peer (RST_STREAM) with this HTTP/2 error code.
        case streamReset(UInt32)
        /// The connection is going away (GOAWAY received, or closed by us or the peer).
        case connectionClosed
        /// The request was certainly not processed by the server (REFUSED_STREAM, a stream
        /// above GOAWAY's last-stream-id, or never sent before the connection ended): a
        /// resend cannot deliver twice.
        case notProcessed
        /// The caller gave the request up (`RequestCancellation`); its stream was reset.
        case cancelled
        /// A bad argument (unparseable host:port, unreadable CA file).
        case configuration
        /// An OpenSSL or nghttp2 call failed where it should not.
        case internalFailure
    }

    package let kind: Kind
    package let message: String
    package let details: [String]

    package init(_ kind: Kind, _ message: String, details: [String] = []) {
        self.kind = kind
        self.message = message
        self.details = details
    }

    /// Builds an error and drains OpenSSL's error queue into `details`.
    static func openssl(_ kind: Kind, _ message: String) -> TransportError {
        TransportError(kind, message, details: OpenSSLErrorQueue.drain())
    }

    package var description: String { message }
}

/// A TLS alert by its registered name (RFC 8446 section 6), for messages such as
/// "the server rejected the client certificate with alert bad_certificate".
package struct TLSAlert: Sendable, Equatable, CustomStringConvertible {
    package let code: Int

    package init(code: Int) { self.code = code }

    package static let badCertificate = TLSAlert(code: 42)
    package static let certificateExpired = TLSAlert(code: 45)
    package static let unknownCA = TLSAlert(code: 48)
    package static let certificateRequired = TLSAlert(code: 116)

    /// Whether this alert says the peer did not accept our certificate (as opposed to a
    /// version or cipher problem).
    package var isAboutClientCertificate: Bool {
        [42, 43, 44, 45, 46, 48, 49, 116].contains(code)
    }

    package var name: String {
        switch code {
        case 0: return "close_notify"
        case 10: return "unexpected_message"
        case 20: return "bad_record_mac"
        case 22: return "record_overflow"
        case 40: return "handshake_failure"
        case 42: return "bad_certificate"
        case 43: return "unsupported_certificate"
        case 44: return "certificate_revoked"
        case 45: return "certificate_expired"
        case 46: return "certificate_unknown"
        case 47: return "illegal_parameter"
        case 48: return "unknown_ca"
        case 49: return "access_denied"
        case 50: return "decode_error"
        case 51: return "decrypt_error"
        case 70: return "protocol_version"
        case 71: return "insufficient_security"
        case 80: return "internal_error"
        case 86: return "inappropriate_fallback"
        case 90: return "user_canceled"
        case 109: return "missing_extension"
        case 110: return "unsupported_extension"
        case 112: return "unrecognized_name"
        case 116: return "certificate_required"
        case 120: return "no_application_protocol"
        default: return "alert \(code)"
        }
    }

    package var description: String { name }
}
