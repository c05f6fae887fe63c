// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import OpenSSLCore

/// Something in a provider token that Apple's documentation does not show but APNs serves, as
/// widely used clients have sent it to Apple for years (docs/apns-protocol.md §1, "Provider
/// token shapes"). The mock accepts such a token and marks every request it authenticates;
/// `apnskit token` says the same.
package enum ProviderTokenQuirk: String, Sendable, CaseIterable, Equatable {
    /// `"iat":"1764300000"`: APNSwift 5.0 to 6.4, kalyke-apns.
    case iatString = "jwt-iat-string"
    /// `"iat":1764300000.25`: PyAPNs2 and its forks (`time.time()`).
    case iatFraction = "jwt-iat-fraction"
    /// Claims besides `iss` and `iat` (APNSwift put `kid` there too).
    case extraClaims = "jwt-extra-claims"
    /// Header fields besides `alg` and `kid` (PyJWT adds `"typ":"JWT"` to every token).
    case extraHeader = "jwt-extra-header"

    /// One sentence: what it is, what the specification or Apple says, what APNs does.
    package var sentence: String {
        switch self {
        case .iatString:
            "iat is a JSON string of digits; RFC 7519 wants a number; APNs accepts it (APNSwift 5.0-6.4 sent it for years); other JWT verifiers may not."
        case .iatFraction:
            "iat has a fraction of a second; RFC 7519 allows it, Apple's documentation shows whole seconds; APNs accepts it (PyAPNs2 sends time.time())."
        case .extraClaims:
            "The claims hold more than iss and iat; Apple documents only those two; APNs ignores the others."
        case .extraHeader:
            "The header holds more than alg and kid (typ, as PyJWT adds); Apple documents only alg and kid; APNs ignores the others."
        }
    }
}

/// A provider token cut into its three parts, its header and claims read as APNs reads them
/// (docs/apns-protocol.md §1): the one reading `ProviderTokenVerifier` (the mock) and
/// `ProviderTokenInspection` (`apnskit token`, the sender's diagnosis) share.
package struct ProviderTokenParts {
    /// What `iat` holds, as APNs reads it.
    package enum IssuedAt: Equatable {
        /// UNIX seconds (a fraction cut off), and the quirk of its spelling if any.
        case seconds(Int, ProviderTokenQuirk?)
        case missing
        /// Not a number nor a string of digits, or out of any plausible range.
        case invalid
    }

    package let header: JSONValue
    package let claims: JSONValue
    /// The third part decoded; nil when it is not base64url.
    package let signature: [UInt8]?
    /// `header.claims` as sent: what the signature covers.
    package let signingInput: [UInt8]

    /// Why a token could not be cut into parts: the sentence `ProviderTokenInspection` shows.
    package enum Malformed: Error, Equatable {
        case partCount(Int)
        case header
        case claims
    }

    /// Cuts `token` (without `bearer `) into its parts.
    package static func parse(_ token: some StringProtocol) -> Result<ProviderTokenParts, Malformed> {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .failure(.partCount(parts.count)) }
        guard let headerBytes = Base64URL.decode(parts[0]), let header = JSONValue.parseObject(headerBytes) else { return .failure(.header) }
        guard let claimBytes = Base64URL.decode(parts[1]), let claims = JSONValue.parseObject(claimBytes) else { return .failure(.claims) }
        return .success(ProviderTokenParts(header: header, claims: claims, signature: Base64URL.decode(parts[2]),
                                           signingInput: Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)))
    }

    package var algorithm: String? { Self.string(header[member: "alg"]) }
    package var keyID: String? { Self.string(header[member: "kid"]) }
    package var teamID: String? { Self.string(claims[member: "iss"]) }

    /// `iat` as APNs takes it: a whole number, a number with a fraction (cut to whole
    /// seconds), or a JSON string of at most 12 digits. Range-checked before any conversion.
    package var issuedAt: IssuedAt {
        switch claims[member: "iat"] {
        case nil: return .missing
        case .int(let seconds)?: return .seconds(seconds, nil)
        case .double(let value)? where value.isFinite && abs(value) < 1e15:
            let whole = value.rounded(.down)
            return .seconds(Int(whole), whole == value ? nil : .iatFraction)
        case .string(let text)? where (1...12).contains(text.utf8.count) && text.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }):
            return Int(text).map { .seconds($0, .iatString) } ?? .invalid
        default: return .invalid
        }
    }

    /// Every quirk this token carries, in `ProviderTokenQuirk`'s order.
    package var quirks: [ProviderTokenQuirk] {
        var found: [ProviderTokenQuirk] = []
        if case .seconds(_, let quirk?) = issuedAt { found.append(quirk) }
        if claims.members?.contains(where: { $0.0 != "iss" && $0.0 != "iat" }) == true { found.append(.extraClaims) }
        if header.members?.contains(where: { $0.0 != "alg" && $0.0 != "kid" }) == true { found.append(.extraHeader) }
        return found
    }

    private static func string(_ value: JSONValue?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }
}
