import OpenSSLCore

/// The error loading or checking credentials throws: its `kind` says what went wrong
/// (unreadable, wrong passphrase, key mismatch, ...), its `message` one sentence naming the
/// file and what to do, its `details` OpenSSL's error queue.
///
/// The public name of `CredentialError`, the error type of the OpenSSL layer the credential
/// API is built on; the layer's own name carries no "APNs" because the transport, which
/// knows no APNs, throws and catches it too.
public typealias APNsCredentialError = CredentialError
