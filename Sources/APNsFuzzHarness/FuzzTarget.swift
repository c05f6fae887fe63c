// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore

/// Every input parser apnskit has, as a fuzz target.
///
/// The same harness bodies run under libFuzzer (the `APNsFuzz` executable, built only by
/// `scripts/fuzz.sh`) and in the deterministic pass inside `swift test` (HardeningTests), so a
/// property checked in CI is exactly the one the fuzzer hunts for violations of.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// `Certificate(der:)` / `Certificate(pem:)`, then every fact `inspect` reads.
    case certificate
    /// `PrivateKey.decode` in every encoding, with no passphrase and with a fixed one.
    case privateKey
    /// `CertificateSigningRequest(bytes:)`, PEM and DER.
    case csr
    /// `PKCS12.parse` with a fixed passphrase supplier.
    case pkcs12
    /// `CredentialFile.load(bytes:)`: the PEM/DER/PKCS#12 sniffing every command starts with.
    case credentialFile
    /// `APNsTopics.parse` over `DERReader`: Apple's topics extension.
    case topics
    /// `ProviderTokenVerifier.verify` with one registered `.p8` key.
    case providerToken
    /// `APNsDeviceToken(parsing:)`.
    case deviceToken
    /// `JSONSyntax.isObject` / `isValue`.
    case json
    /// `BatchLine.parse`: one line of a `--tokens` file.
    case batchLine
    /// `RequestValidator.validate` with fuzzed method, path, headers and body.
    case request
    /// `LegacyFrameDecoder` fed the same bytes whole and in arbitrary chunks.
    case legacyFrames
    /// `LegacyErrorResponse(bytes:)` and `FeedbackTuple.decodeAll`.
    case legacyReplies
    /// `HTTP2Session` glue: peer frames into a server session and into a client session.
    case http2
    /// `ProvisioningProfileFile.read` (CMS envelope, then property list) and, for inputs whose
    /// mode byte is odd, `ProvisioningProfile.parse` on the property list directly.
    case provisioningProfile

    /// Runs the harness on one input. Returns normally for an accepted input and for a
    /// rejection with a typed, non-empty error; throws `HarnessViolation` otherwise (libFuzzer
    /// turns that into a crash report, the test pass into a failed expectation).
    package func run(_ input: [UInt8]) throws {
        switch self {
        case .certificate: try CredentialHarnesses.certificate(input)
        case .privateKey: try CredentialHarnesses.privateKey(input)
        case .csr: try CredentialHarnesses.csr(input)
        case .pkcs12: try CredentialHarnesses.pkcs12(input)
        case .credentialFile: try CredentialHarnesses.credentialFile(input)
        case .topics: try CredentialHarnesses.topics(input)
        case .providerToken: try CredentialHarnesses.providerToken(input)
        case .deviceToken: try ProtocolHarnesses.deviceToken(input)
        case .json: try ProtocolHarnesses.json(input)
        case .batchLine: try ProtocolHarnesses.batchLine(input)
        case .request: try ProtocolHarnesses.request(input)
        case .legacyFrames: try ProtocolHarnesses.legacyFrames(input)
        case .legacyReplies: try ProtocolHarnesses.legacyReplies(input)
        case .http2: try HTTP2Harness.http2(input)
        case .provisioningProfile: try ProfileHarness.provisioningProfile(input)
        }
    }

    /// Valid inputs for this target, built from fixtures made in-process (never a real key).
    package func seeds() throws -> [[UInt8]] { try SeedCorpus.seeds(for: self) }
}

/// A broken promise: a crash-free parser that still answered wrongly (an untyped error, an
/// empty message, an accepted value that breaks the type's own rules).
package struct HarnessViolation: Error, CustomStringConvertible, Sendable {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// Turns "what did the parser do" into "was that allowed".
enum Check {
    /// Runs `body`; a `APNsCredentialError` with a message is a proper rejection (nil), any other
    /// error is a violation.
    static func credential<T>(_ what: String, _ body: () throws -> T) throws -> T? {
        do {
            return try body()
        } catch let error as APNsCredentialError {
            guard !error.message.isEmpty else { throw HarnessViolation("\(what): APNsCredentialError(\(error.kind)) with an empty message") }
            return nil
        } catch {
            throw HarnessViolation("\(what): untyped error \(type(of: error)): \(error)")
        }
    }

    static func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw HarnessViolation(message()) }
    }
}
