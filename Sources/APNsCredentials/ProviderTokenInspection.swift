// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// What is wrong with a provider token (JWT), check by check, the way the Push Notifications
/// Console's validator reports it (apns-protocol.md §1 and §8): structure, header, claims, age
/// and, given the key, the signature. Unlike `ProviderTokenVerifier`, which stops at the first
/// failure as APNs does, this looks at everything so a user fixes all of it at once.
package struct ProviderTokenInspection: Sendable, Equatable {
    /// One check: its name (`structure`, `alg`, `kid`, `iss`, `iat`, `age`, `signature`,
    /// `key`, and a `ProviderTokenQuirk` id for each shape APNs serves that its documentation
    /// does not show), whether it passed, and a sentence saying what was found.
    package struct Check: Sendable, Equatable, Encodable {
        package let check: String
        package let ok: Bool
        package let message: String
    }

    package private(set) var checks: [Check] = []
    package private(set) var keyID: String?
    package private(set) var teamID: String?
    package private(set) var issuedAt: Int?
    /// Seconds since `iat` at inspection time (negative: issued in the future).
    package private(set) var ageSeconds: Int?

    /// Every check passed: APNs would accept the token (if the key is registered with the team).
    package var isValid: Bool { checks.allSatisfy(\.ok) }

    /// Inspects `token` (with or without a leading `bearer `). `key`, the public key of the
    /// `.p8`, enables the signature check; `keyFileID` (from `AuthKey_<KEYID>.p8`) and
    /// `expectedTeamID` are compared with the token's `kid` and `iss` when given.
    package init(_ token: String, key: PublicKey? = nil, keyFileID: String? = nil, expectedTeamID: String? = nil, now: Date = Date()) {
        var text = token.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.lowercased().hasPrefix("bearer ") { text = String(text.dropFirst("bearer ".count)) }
        let parts: ProviderTokenParts
        switch ProviderTokenParts.parse(text) {
        case .failure(.partCount(let count)):
            add("structure", false, "A JWT has three base64url parts separated by dots (header.claims.signature); this has \(count).")
            return
        case .failure(.header):
            add("structure", false, "The first part is not a base64url-encoded JSON object (the header).")
            return
        case .failure(.claims):
            add("structure", false, "The second part is not a base64url-encoded JSON object (the claims).")
            return
        case .success(let value): parts = value
        }
        add("structure", true, "Three parts; header and claims are JSON.")
        checkHeader(parts, keyFileID: keyFileID)
        checkClaims(parts, expectedTeamID: expectedTeamID, now: now)
        checkSignature(parts.signature, signingInput: parts.signingInput, key: key)
        // Shapes APNs serves though its documentation does not show them: passed, and said.
        for quirk in parts.quirks { add(quirk.rawValue, true, quirk.sentence) }
    }

    private mutating func add(_ check: String, _ ok: Bool, _ message: String) {
        checks.append(Check(check: check, ok: ok, message: message))
    }

    private mutating func checkHeader(_ parts: ProviderTokenParts, keyFileID: String?) {
        let alg = parts.algorithm
        add("alg", alg == "ES256", alg == "ES256" ? "alg is ES256." : "alg is \(alg.map { "'\($0)'" } ?? "missing"); APNs accepts only ES256 (P-256 ECDSA with SHA-256).")
        guard let kid = parts.keyID else {
            add("kid", false, "The header has no kid; put the 10-character key id of the .p8 (AuthKey_<KEYID>.p8) there.")
            return
        }
        keyID = kid
        if !APNsTokenSigner.isAppleIdentifier(kid) {
            add("kid", false, "kid '\(kid)' is not a 10-character Apple key id (A-Z, 0-9).")
        } else if let keyFileID, keyFileID != kid {
            add("kid", false, "kid is \(kid) but the key file is AuthKey_\(keyFileID).p8: the token names another key than the one given.")
        } else {
            add("kid", true, "kid is \(kid).")
        }
    }

    private mutating func checkClaims(_ parts: ProviderTokenParts, expectedTeamID: String?, now: Date) {
        if let iss = parts.teamID {
            teamID = iss
            if !APNsTokenSigner.isAppleIdentifier(iss) {
                add("iss", false, "iss '\(iss)' is not a 10-character Apple team id.")
            } else if let expectedTeamID, expectedTeamID != iss {
                add("iss", false, "iss is \(iss), not the team \(expectedTeamID): a token claiming another team than its key's is InvalidProviderToken.")
            } else {
                add("iss", true, "iss (team) is \(iss).")
            }
        } else {
            add("iss", false, "The claims have no iss; put your 10-character team id there.")
        }
        guard case .seconds(let iat, _) = parts.issuedAt else {
            add("iat", false, "iat must be UNIX seconds: a number, or (as APNs also takes) a JSON string of digits; not milliseconds, not a date.")
            return
        }
        issuedAt = iat
        if iat > 100_000_000_000 {
            add("iat", false, "iat \(iat) looks like milliseconds; APNs wants seconds since 1970.")
            return
        }
        if iat < 0 {
            add("iat", false, "iat \(iat) is before 1970; APNs wants the time the token was made, in seconds since 1970.")
            return
        }
        let age = Int(now.timeIntervalSince1970) - iat
        ageSeconds = age
        add("iat", true, "iat is \(iat).")
        if age > 3600 {
            add("age", false, "Issued \(age / 60) minutes ago: APNs refuses tokens older than an hour (403 ExpiredProviderToken); make a new one.")
        } else if age < -Int(ProviderTokenVerifier.futureTolerance) {
            add("age", false, "Issued \(-age) seconds in the future: check the clock of the machine that made it (APNs answers InvalidProviderToken).")
        } else {
            add("age", true, "Issued \(max(age, 0) / 60) minutes ago; valid for about \(max(0, 3600 - age) / 60) more (reuse one token for 20-60 minutes).")
        }
    }

    private mutating func checkSignature(_ signature: [UInt8]?, signingInput: [UInt8], key: PublicKey?) {
        guard let signature else {
            add("signature", false, "The third part is not base64url.")
            return
        }
        guard signature.count == 64 else {
            let der = signature.first == 0x30
            add("signature", false, "The signature is \(signature.count) bytes; JWS ES256 wants the raw 64-byte r||s\(der ? " (this looks DER-encoded, as OpenSSL signs by default)" : "").")
            return
        }
        guard let key else {
            add("signature", true, "64 bytes, as ES256 wants (not checked against a key: give --auth-key).")
            return
        }
        let ok = ES256.verify(signature, over: signingInput, with: key)
        add("signature", ok, ok ? "Verifies with the given key." : "Does not verify with the given key: the token was signed by another key, or altered.")
    }
}
