/// The one error type the credential layer throws.
///
/// Every failure is a single sentence a user can act on (which file, what is wrong, what to
/// do); OpenSSL's error queue, drained at the API boundary, rides along in `details` for
/// `--verbose`. `kind` decides the CLI's exit code, so callers never parse messages.
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
    }

    public let kind: Kind
    public let message: String
    /// OpenSSL's error queue at the time of failure, one line per entry.
    public let details: [String]

    public init(_ kind: Kind, _ message: String, details: [String] = []) {
        self.kind = kind
        self.message = message
        self.details = details
    }

    /// Builds an error and drains OpenSSL's error queue into `details`.
    static func openssl(_ kind: Kind, _ message: String) -> CredentialError {
        CredentialError(kind, message, details: OpenSSLErrorQueue.drain())
    }

    public var description: String { message }
}
