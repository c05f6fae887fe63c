// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore

/// The error loading or checking credentials throws: its `kind` says what went wrong, its
/// `message` (and description) one sentence naming the file and what to do, its `details`
/// OpenSSL's error queue, and `file` the file it is about.
///
/// `kind` is one of: `unreadable` (missing, truncated, corrupt, or not a format read here),
/// `wrongKind` (a CSR given as a certificate), `excessiveCost` (more key-derivation work than
/// allowed: damaged, or made to stall its reader), `wrongPassphrase`, `missingPassphrase`,
/// `keyMismatch` (the key is not the certificate's), `outputExists`, `outputFailed`,
/// `invalidArgument`, `internalFailure` (OpenSSL failed where it should not),
/// `unsupportedAlgorithm` (encrypted with an algorithm this OpenSSL cannot run: not a
/// passphrase problem) and `ambiguousIdentity` (several key + certificate pairs and nothing
/// said which one).
///
/// The public name of `CredentialError`, the error type of the OpenSSL layer the credential
/// API is built on; that layer's own name carries no "APNs" because the transport, which
/// knows no APNs, throws and catches it too.
public typealias APNsCredentialError = CredentialError
