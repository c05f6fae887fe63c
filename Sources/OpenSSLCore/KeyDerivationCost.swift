// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import CShims

/// Caps on the work a password-protected file may ask for before apnskit derives a key from
/// a passphrase.
///
/// A .p12 or encrypted PKCS#8 key names its own iteration count (or scrypt parameters), and
/// OpenSSL runs whatever it names: a file crafted with 100,000,000 iterations kept apnskit
/// busy for minutes per derivation (a .p12 needs at least three: its MAC, its certificates,
/// its key). The counts are read from the file's parameters first, and a file over the caps
/// is refused with one sentence, before any derivation.
package enum KeyDerivationCost {
    /// Iterations of PBKDF2, the PKCS#12 key derivation (MAC, legacy RC2/3DES bags) and
    /// PKCS#5 v1 PBE. Keychain, OpenSSL and apnskit write 2,048; OWASP's advice for
    /// PBKDF2-HMAC-SHA256 (2023) is 600,000. 1,000,000 allows that with room to spare and
    /// costs about a second per derivation (0.9 s for PBKDF2-SHA256 on the 2-core test machine).
    package static let maximumIterations: UInt64 = 1_000_000

    /// scrypt's N·r·p. OpenSSL's default (N 16384, r 8, p 1) is 131,072, about 0.2 s;
    /// OpenSSL caps scrypt's memory at 32 MB, which bounds N·r but not p, and p multiplies
    /// the time (N 16384, r 8, p 8: 1 s; p 16,000 still fits the memory and takes most of an
    /// hour). 2^20 is eight times the default, about as long as the iteration cap.
    package static let maximumScryptWork: UInt64 = 1 << 20

    /// Throws when `cost` asks for more than the caps.
    static func check(_ cost: shim_kdf_cost, label: String) throws {
        if cost.iterations > maximumIterations {
            throw CredentialError(.excessiveCost, "\(label) asks for \(cost.iterations) key-derivation iterations for \(part(cost.iterations_where)), more than the \(maximumIterations) apnskit accepts (Keychain and OpenSSL use 2048; a million take about a second), so it is damaged or made to stall its reader; export it again.")
        }
        let (nr, overflowNR) = cost.scrypt_n.multipliedReportingOverflow(by: cost.scrypt_r)
        let (work, overflow) = nr.multipliedReportingOverflow(by: cost.scrypt_p)
        if overflowNR || overflow || work > maximumScryptWork {
            throw CredentialError(.excessiveCost, "\(label) asks for scrypt with N \(cost.scrypt_n), r \(cost.scrypt_r), p \(cost.scrypt_p) for \(part(cost.scrypt_where)), more work (N·r·p) than the \(maximumScryptWork) apnskit accepts (OpenSSL's default is 131072, about 0.2 seconds), so it is damaged or made to stall its reader; export it again.")
        }
    }

    private static func part(_ location: Int32) -> String {
        switch location {
        case Int32(SHIM_KDF_MAC): return "its integrity check"
        case Int32(SHIM_KDF_CONTENTS): return "its encrypted certificates"
        default: return "its private key"
        }
    }
}
