// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The one error type the credential layer throws: the OpenSSL wrappers here, and the APNs
/// rules above them, which name it `APNsCredentialError` (its public name, a type alias: this
/// layer sits below the transport, which knows no APNs).
///
/// Every failure is a single sentence a user can act on (which file, what is wrong, what to
/// do); OpenSSL's error queue, drained at the API boundary, rides along in `details`.
/// `kind` decides the CLI's exit code, so callers never parse messages. The library never
/// names a command-line flag: the sentence says what to do in the library's terms and the
/// structured fields (`file`, `option`, `algorithm`, `identities`) let the CLI add its own
/// wording and flag hints.
public struct CredentialError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        /// Input missing, truncated, corrupt, or not a format we read.
        case unreadable
        /// Readable, but not the kind of object needed here (a CSR given as a certificate).
        case wrongKind
        /// The input asks for more key-derivation work than apnskit allows
        /// (`KeyDerivationCost`): damaged, or made to stall its reader.
        case excessiveCost
        /// A passphrase was given and it does not decrypt the input.
        case wrongPassphrase
        /// The input is encrypted and no passphrase source was given (and no TTY to ask on).
        case missingPassphrase
        /// The private key is not the certificate's key.
        case keyMismatch
        /// The output exists and `--force` was not given.
        case outputExists
        /// The output could not be written (folder missing or not writable, disk full).
        case outputFailed
        /// A value given by the user is not acceptable (bad passphrase source, bad name).
        case invalidArgument
        /// OpenSSL failed where it should not (out of memory, missing algorithm).
        case internalFailure
        /// The input is encrypted (or signed) with an algorithm this OpenSSL cannot run, even
        /// with its legacy provider: not a passphrase problem, so never reported as one.
        case unsupportedAlgorithm
        /// The input holds several key + certificate pairs and nothing said which one to use.
        case ambiguousIdentity
    }

    public let kind: Kind
    public let message: String
    /// OpenSSL's error queue at the time of failure, one line per entry.
    public let details: [String]
    /// The file the error is about (its display name), when there is one.
    public var file: String?
    /// The command-line option that supplied the value at fault (a passphrase source), as the
    /// caller named it to `PassphraseSupplier`; nil when the library was not told one.
    package var option: String?
    /// The algorithm OpenSSL could not run, for `unsupportedAlgorithm`.
    package var algorithm: String?
    /// What the user can supply to get past the error, for the caller to name in its own terms
    /// (a flag, a prompt); nil when the sentence says it all.
    package var remedy: Remedy?
    package enum Remedy: String, Sendable, Equatable {
        /// A (different) passphrase, from `option`.
        case passphrase
        /// Permission to replace the existing output.
        case replaceOutput
        /// The token key's 10-character key id.
        case keyID
        /// Which of `identities` to use.
        case identityChoice
    }
    /// The identities to choose from, for `ambiguousIdentity` ("1: friendlyName (subject)").
    package var identities: [String] = []

    package init(_ kind: Kind, _ message: String, details: [String] = [], file: String? = nil, remedy: Remedy? = nil) {
        self.kind = kind
        self.message = message
        self.details = details
        self.file = file
        self.remedy = remedy
    }

    /// Builds an error and drains OpenSSL's error queue into `details`.
    package static func openssl(_ kind: Kind, _ message: String) -> CredentialError {
        CredentialError(kind, message, details: OpenSSLErrorQueue.drain())
    }

    public var description: String { message }
}
