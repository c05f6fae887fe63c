// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL

/// Why a client does not trust the server it reached: the chain does not verify against the
/// trust store, or the leaf is for another host name. Built from the same handshake facts
/// whether verification aborted the handshake (`.full`) or only recorded them (`.reportOnly`),
/// so every caller words the same failure the same way.
package struct ServerTrustFailure: Sendable, Equatable {
    package enum Problem: Sendable, Equatable {
        /// The chain did not verify: OpenSSL's text ("unable to get local issuer certificate")
        /// and, when the chain could not be anchored, the CA the trust store lacks.
        case chain(verifyError: String, missingIssuer: String?)
        /// The chain verified but the leaf is for `certificateName`, not the host we dialled.
        case hostname(certificateName: String?)
    }

    package let problem: Problem
    /// The host name or IP address we connected to.
    package let host: String

    package init(_ problem: Problem, host: String) {
        self.problem = problem
        self.host = host
    }
}

extension TLSHandshakeInfo {
    /// OpenSSL's codes for a leaf that does not match the name or address asked for.
    static let nameMismatchResults = [Int(X509_V_ERR_HOSTNAME_MISMATCH), Int(X509_V_ERR_IP_ADDRESS_MISMATCH)]

    /// Why the server is not trusted, or nil when chain and host name are fine (client side).
    package func trustFailure(host: String) -> ServerTrustFailure? {
        // Full verification checks the name inside the chain verification, so a name mismatch
        // shows up as the verify result; report-only checks it separately (`hostnameMatches`).
        let nameMismatch = Self.nameMismatchResults.contains(verifyResult)
        if !chainVerified && !nameMismatch {
            return ServerTrustFailure(.chain(verifyError: verifyError ?? "unknown error", missingIssuer: missingIssuer), host: host)
        }
        if nameMismatch || hostnameMatches == false {
            return ServerTrustFailure(.hostname(certificateName: peerChain.first?.subject.commonName), host: host)
        }
        return nil
    }
}
