// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// What an APNs provider token (JWT) says: which `.p8` key signed it, for which team, when.
package struct ProviderTokenClaims: Sendable, Equatable {
    package let keyID: String
    package let teamID: String
    /// UNIX seconds.
    package let issuedAt: Int
    /// What the token carries that Apple's documentation does not show but APNs serves
    /// (`ProviderTokenQuirk`): the mock marks every request the token authenticates.
    package let quirks: [ProviderTokenQuirk]

    package init(keyID: String, teamID: String, issuedAt: Int, quirks: [ProviderTokenQuirk] = []) {
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = issuedAt
        self.quirks = quirks
    }
}

/// Mints provider tokens: header `{"alg":"ES256","kid":KEYID}`, claims `{"iss":TEAMID,"iat":NOW}`,
/// signed with the P-256 key of `AuthKey_<KEYID>.p8`. APNs wants one token reused for 20-60
/// minutes (older than an hour: ExpiredProviderToken; refreshed too often:
/// TooManyProviderTokenUpdates), so callers cache what this returns; see the sender's cache.
public struct APNsTokenSigner: Sendable {
    /// The 10-character key id (in the .p8 file name, AuthKey_<KEYID>.p8).
    public let keyID: String
    /// The 10-character team id the key belongs to.
    public let teamID: String
    private let key: PrivateKey

    package init(key: PrivateKey, keyID: String, teamID: String) throws {
        guard key.curveName == "P-256" else {
            throw APNsCredentialError(.wrongKind, "Token auth needs the P-256 key from an AuthKey_<KEYID>.p8 file; this is a \(key.summary) key.")
        }
        guard Self.isAppleIdentifier(keyID) else {
            throw APNsCredentialError(.invalidArgument, "Key ID '\(keyID)' is not a 10-character Apple key identifier (it is in the .p8 file name, AuthKey_<KEYID>.p8).")
        }
        guard Self.isAppleIdentifier(teamID) else {
            throw APNsCredentialError(.invalidArgument, "Team ID '\(teamID)' is not a 10-character Apple team identifier (see Membership in the developer portal).")
        }
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
    }

    /// Loads `AuthKey_<KEYID>.p8`; the key id defaults to the one in the file name.
    /// Throws `APNsCredentialError`.
    public static func load(authKey path: String, keyID: String? = nil, teamID: String) throws -> APNsTokenSigner {
        let key = try IdentityLoader.privateKey(path, passphrases: .none)
        guard let id = keyID ?? keyIDFromFileName(path) else {
            // The caller names its key-id option in its hint (the error's `file` says which key).
            throw APNsCredentialError(.invalidArgument, "Cannot tell the key ID of \(displayName(path)): its name is not AuthKey_<KEYID>.p8, so the key id must be given.",
                                  file: displayName(path), remedy: .keyID)
        }
        return try APNsTokenSigner(key: key, keyID: id, teamID: teamID)
    }

    /// The .p8 key given as its PEM text (from a secret store or an environment variable, never
    /// written to disk). Throws `APNsCredentialError`.
    public init(authKeyPEM: String, keyID: String, teamID: String) throws {
        let key = try PrivateKey.decode(Array(authKeyPEM.utf8), label: "the .p8 key text", passphrases: .none)
        try self.init(key: key, keyID: keyID, teamID: teamID)
    }

    /// `AuthKey_ABC123DEFG.p8` -> `ABC123DEFG`.
    package static func keyIDFromFileName(_ path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard name.hasPrefix("AuthKey_"), name.hasSuffix(".p8") else { return nil }
        let id = String(name.dropFirst("AuthKey_".count).dropLast(".p8".count))
        return isAppleIdentifier(id) ? id : nil
    }

    /// Apple's key and team ids: 10 characters, upper-case letters and digits.
    package static func isAppleIdentifier(_ text: String) -> Bool {
        text.utf8.count == 10 && text.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// A signed token issued at `issuedAt`.
    package func token(issuedAt: Date = Date()) throws -> String {
        let header = Base64URL.encode(Array(#"{"alg":"ES256","kid":"\#(keyID)"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"iss":"\#(teamID)","iat":\#(Int(issuedAt.timeIntervalSince1970))}"#.utf8))
        let signingInput = "\(header).\(claims)"
        let signature = try ES256.sign(Array(signingInput.utf8), with: key)
        return "\(signingInput).\(Base64URL.encode(signature))"
    }
}

/// Checks provider tokens as APNs does (used by the mock gateway): the shapes APNs serves are
/// accepted and reported in `ProviderTokenClaims.quirks` (docs/apns-protocol.md §1).
package enum ProviderTokenVerifier {
    package enum Failure: Error, Sendable, Equatable {
        /// Not three base64url parts of JSON objects, not ES256, no `kid`, no `iss`, or an
        /// `iat` that is neither a number nor a string of digits -> InvalidProviderToken.
        case malformed
        /// `kid` not registered -> InvalidProviderToken.
        case unknownKey(String)
        /// Signature does not verify -> InvalidProviderToken.
        case badSignature
        /// `iat` older than the maximum age -> ExpiredProviderToken.
        case expired
        /// `iat` in the future beyond `futureTolerance` -> InvalidProviderToken.
        case issuedInFuture
    }

    /// How far ahead of the gateway's clock `iat` may be. Apple publishes no figure; 5 minutes
    /// (docs/apns-protocol.md §1, "Provider token shapes"): a provider's clock kept by NTP is
    /// within a second, so only a broken clock goes past it, and a mock refusing what Apple
    /// might serve would fail users' tests for nothing.
    package static let futureTolerance: Double = 300

    /// The `kid` of a token's header, without checking anything else.
    package static func keyID(of token: String) -> String? {
        guard case .success(let parts) = ProviderTokenParts.parse(token) else { return nil }
        return parts.keyID
    }

    package static func verify(_ token: String, keys: [String: PublicKey], now: Date = Date(), maximumAge: TimeInterval = 3600) -> Result<ProviderTokenClaims, Failure> {
        guard case .success(let parts) = ProviderTokenParts.parse(token), let signature = parts.signature,
              parts.algorithm == "ES256", let keyID = parts.keyID, let teamID = parts.teamID,
              case .seconds(let issuedAt, _) = parts.issuedAt else {
            return .failure(.malformed)
        }
        guard let key = keys[keyID] else { return .failure(.unknownKey(keyID)) }
        guard ES256.verify(signature, over: parts.signingInput, with: key) else { return .failure(.badSignature) }
        let age = now.timeIntervalSince1970 - TimeInterval(issuedAt)
        if age > maximumAge { return .failure(.expired) }
        if age < -futureTolerance { return .failure(.issuedInFuture) }
        return .success(ProviderTokenClaims(keyID: keyID, teamID: teamID, issuedAt: issuedAt, quirks: parts.quirks))
    }
}
