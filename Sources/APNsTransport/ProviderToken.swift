import APNsCredentials
import CAPNsShims
import COpenSSL
import Foundation

/// An APNs provider authentication token: an ES256 JWT signed with the P-256 key from an
/// `AuthKey_<KEYID>.p8` file (APNS.md section 1).
///
/// JWS wants the ECDSA signature as raw `r||s` (64 bytes); OpenSSL produces DER, so the
/// signature is converted. Lives here until the sender module exists, which will cache one
/// token for 20-60 minutes (APNs refuses tokens older than an hour and too-frequent refreshes).
public enum ProviderToken {
    /// `header.claims.signature`, base64url without padding.
    public static func make(key: PrivateKey, keyID: String, teamID: String, issuedAt: Date = Date()) throws -> String {
        guard key.curveName == "P-256" else {
            throw TransportError(.configuration, "The token-auth key is \(key.summary), not the EC P-256 key of an AuthKey_\(keyID).p8 file.")
        }
        let header = #"{"alg":"ES256","kid":"\#(escape(keyID))"}"#
        let claims = #"{"iss":"\#(escape(teamID))","iat":\#(Int(issuedAt.timeIntervalSince1970))}"#
        let signingInput = base64url(Array(header.utf8)) + "." + base64url(Array(claims.utf8))
        let der = try sign(Array(signingInput.utf8), with: key)
        var raw = [UInt8](repeating: 0, count: 64)
        guard apns_ecdsa_der_to_raw(der, der.count, &raw, 32) == 1 else {
            throw TransportError.openssl(.internalFailure, "OpenSSL produced an ECDSA signature that could not be converted to r||s.")
        }
        return signingInput + "." + base64url(raw)
    }

    /// SHA-256 + ECDSA over `data`; DER-encoded signature.
    static func sign(_ data: [UInt8], with key: PrivateKey) throws -> [UInt8] {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_MD_CTX_new() else {
            throw TransportError.openssl(.internalFailure, "OpenSSL could not allocate a signing context.")
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else {
            throw TransportError.openssl(.internalFailure, "OpenSSL could not start an ES256 signature with the token key.")
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, data, data.count) == 1 else {
            throw TransportError.openssl(.internalFailure, "OpenSSL could not size the ES256 signature.")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, data, data.count) == 1 else {
            throw TransportError.openssl(.internalFailure, "OpenSSL could not sign the provider token.")
        }
        return Array(signature.prefix(length))
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
