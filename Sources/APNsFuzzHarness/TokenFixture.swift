// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import Foundation

/// The one `.p8`-style key the provider-token harness registers, made once per process.
struct TokenFixture: Sendable {
    static let keyID = "KEYID12345"
    static let teamID = "TEAM123456"
    /// A fixed clock, so seed tokens stay valid however long a fuzzing run lasts.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    let signer: APNsTokenSigner
    let publicKey: PublicKey

    static let shared = Result<TokenFixture, any Error> {
        let key = try PrivateKey.generate(.ec256)
        return TokenFixture(signer: try APNsTokenSigner(key: key, keyID: keyID, teamID: teamID), publicKey: try PublicKey(of: key))
    }
}
