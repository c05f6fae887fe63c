// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import OpenSSLCore
import Foundation

/// Reads one credential file of any kind and says what it is and what is off with it.
///
/// Never throws: an unreadable file becomes a report of kind `unreadable` carrying the one
/// sentence error, so `inspect` and `check` can go on to the next file.
package enum CredentialInspector {
    /// - Parameters:
    ///   - extraKey: a key from `--key`, matched against the file's certificate and CSR.
    ///   - profileTrust: `--ca-file`, which a provisioning profile's signer must chain to.
    package static func inspect(_ path: String, passphrases: PassphraseSupplier, extraKey: PrivateKey? = nil,
                               now: Date = Date(), expiryWarningDays: Int = APNsCertificateInfo.defaultExpiryWarningDays,
                               profileTrust: TrustStore? = nil) -> CredentialReport {
        inspectLoaded(path, passphrases: passphrases, extraKey: extraKey, now: now, expiryWarningDays: expiryWarningDays,
                      profileTrust: profileTrust).report
    }

    /// The report plus the loaded objects (for `check`, which verifies the leaf's chain).
    /// A provisioning profile has no credential contents: an empty set stands for "read".
    package static func inspectLoaded(_ path: String, passphrases: PassphraseSupplier, extraKey: PrivateKey?,
                                      now: Date, expiryWarningDays: Int,
                                      decoding: CredentialDecoding = .automatic,
                                      profileTrust: TrustStore? = nil) -> (report: CredentialReport, contents: CredentialContents?) {
        do {
            let label = displayName(path)
            let bytes = try CredentialFile.readCredential(path, decoding: decoding)
            if ProvisioningProfileFile.isProfile(path: path, bytes: bytes) {
                let report = ProvisioningProfileFile.report(path, bytes, trust: profileTrust, now: now, expiryWarningDays: expiryWarningDays)
                return (report, report.kind == .unreadable ? nil : CredentialContents(encoding: .der))
            }
            // Already unwrapped: `.automatic` leaves PEM and DER as they are.
            let contents = try CredentialFile.load(bytes: bytes, label: label, passphrases: passphrases, skipLockedKeys: true)
            return (report(path, contents, extraKey: extraKey, now: now, expiryWarningDays: expiryWarningDays), contents)
        } catch {
            return (CredentialReport.unreadable(path, error), nil)
        }
    }

    /// The certificate the file is about: the one the key belongs to, else the first that is
    /// not a CA, else the first.
    package static func leafIndex(_ certificates: [Certificate], key: PrivateKey?) -> Int? {
        if let key, let index = certificates.firstIndex(where: { key.matches($0) }) { return index }
        return certificates.firstIndex { !$0.isCA } ?? (certificates.isEmpty ? nil : 0)
    }

    static func report(_ path: String, _ contents: CredentialContents, extraKey: PrivateKey?, now: Date,
                       expiryWarningDays: Int) -> CredentialReport {
        let key = contents.privateKeys.first ?? extraKey
        let pairs = contents.identities
        // Each certificate is matched with its own key; the leaf (the first identity, else the
        // usual choice) also with the file's first key, so a mismatch shows.
        var keyOf: [Int: PrivateKey] = [:]
        for pair in pairs where keyOf[pair.certificateIndex] == nil { keyOf[pair.certificateIndex] = contents.privateKeys[pair.keyIndex] }
        let leafIndex = pairs.first?.certificateIndex ?? leafIndex(contents.certificates, key: key)
        if let leafIndex, keyOf[leafIndex] == nil { keyOf[leafIndex] = key }
        let certificates = contents.certificates.enumerated().map { index, certificate in
            APNsCertificateInfo(certificate, key: keyOf[index], now: now, expiryWarningDays: expiryWarningDays)
        }
        let leafCertificate = leafIndex.map { contents.certificates[$0] }
        let keys = contents.privateKeys.enumerated().map { keyIndex, privateKey in
            let attributes = contents.attributes(key: keyIndex)
            return CredentialReport.KeyInfo(algorithm: privateKey.algorithm, bits: privateKey.bits, summary: privateKey.summary,
                                            encrypted: contents.hadEncryptedKey, matchesCertificate: leafCertificate.map { privateKey.matches($0) },
                                            certificateIndex: pairs.first { $0.keyIndex == keyIndex }?.certificateIndex,
                                            friendlyName: attributes.friendlyName, localKeyID: attributes.localKeyIDHex)
        }
        let identities = pairs.map { pair in
            let certificate = contents.certificates[pair.certificateIndex]
            return CredentialReport.IdentityInfo(number: pair.number, friendlyName: pair.friendlyName, localKeyID: pair.localKeyID.map { hex($0) },
                                                 subject: certificate.subject.description, commonName: certificate.subject.commonName,
                                                 certificateIndex: pair.certificateIndex, keyIndex: pair.keyIndex)
        }
        let requests = contents.requests.map { request in
            CredentialReport.RequestInfo(subject: request.subject.description, keySummary: request.publicKeySummary,
                                         signatureValid: request.signatureIsValid, matchesKey: key.map { request.matches($0) })
        }
        let description: Description
        if !contents.certificates.isEmpty {
            description = describeCertificates(contents, leaf: leafCertificate)
        } else if let first = contents.privateKeys.first, contents.requests.isEmpty {
            description = looksLikeAuthKey(path) ? describeAuthKey(first, path: path) : describeKey(first, contents)
        } else if let request = contents.requests.first {
            description = describeRequest(request, key: key)
        } else if looksLikeAuthKey(path), contents.otherLabels.contains(where: { PEMBlock.kind(of: $0) == .publicKey }) {
            description = describePublicAuthKey(path: path)
        } else {
            let encodingName = contents.encoding == .pkcs12 ? "PKCS#12" : contents.encoding.rawValue.uppercased()
            description = Description(kind: .other, summary: "\(encodingName) with \(contents.summary)",
                                      findings: [Finding(.warning, "nothingUsable", "no certificate, private key or CSR in the file")])
        }
        return CredentialReport(path: path, kind: description.kind, summary: description.summary, encoding: contents.encoding.rawValue,
                                leafIndex: leafIndex, certificates: certificates, privateKeys: keys, identities: identities, requests: requests,
                                authKey: description.authKey, findings: description.findings)
    }

    /// What a file is, in words and as a kind, with the findings about the file as a whole.
    struct Description {
        var kind: CredentialReport.Kind
        var summary: String
        var findings: [Finding] = []
        var authKey: CredentialReport.AuthKeyInfo? = nil
    }

    /// "combined PEM: certificate + matching RSA-2048 key + 1 chain certificate", ...
    /// (A mismatching key is a finding on the leaf certificate, not repeated here.)
    static func describeCertificates(_ contents: CredentialContents, leaf: Certificate?) -> Description {
        let pairs = contents.identities
        if pairs.count > 1 { return describeIdentities(contents, pairs) }
        var keyPart = ""
        if let first = contents.privateKeys.first {
            let matches = leaf.map { first.matches($0) } ?? false
            keyPart = matches ? " + matching \(first.summary) key" : " + \(first.summary) key that does NOT match"
        } else if !contents.lockedKeys.isEmpty {
            keyPart = " + encrypted key (not opened: no passphrase)"
        }
        let chainCount = contents.certificates.count - 1
        let chainPart = chainCount > 0 ? " + \(chainCount) chain certificate\(chainCount == 1 ? "" : "s")" : ""
        var description: Description
        if contents.encoding == .pkcs12 {
            description = Description(kind: .pkcs12, summary: "PKCS#12: certificate\(keyPart)\(chainPart)"
                                      + (contents.privateKeys.isEmpty ? " (no private key)" : ""))
        } else if !contents.privateKeys.isEmpty || !contents.lockedKeys.isEmpty {
            description = Description(kind: .combinedPEM, summary: "combined PEM: certificate\(keyPart)\(chainPart)")
        } else if chainCount > 0 {
            description = Description(kind: .certificateChain, summary: "\(contents.encoding.rawValue.uppercased()) certificate\(chainPart)")
        } else {
            description = Description(kind: .certificate,
                                      summary: contents.encoding == .der ? "DER certificate (as the developer portal's .cer)" : "PEM certificate")
        }
        if contents.privateKeys.count > 1 {
            description.findings.append(Finding(.warning, "multipleKeys", "the file holds \(contents.privateKeys.count) private keys; tools will use only the first"))
        }
        if let leaf, leaf.isCA, contents.privateKeys.isEmpty {
            description.findings.append(Finding(.warning, "notAPNs", "the file holds only CA certificates (CA:TRUE), no Apple push certificate"))
        }
        description.findings += lockedKeyFindings(contents)
        return description
    }

    /// Several key + certificate pairs: node-apn and pushy ship such .p12 files; tools that
    /// take the first pair (or refuse, as node-apn does) need one chosen.
    static func describeIdentities(_ contents: CredentialContents, _ pairs: [KeyCertificatePair]) -> Description {
        let chainCount = contents.certificates.count - Set(pairs.map(\.certificateIndex)).count
        let chainPart = chainCount > 0 ? " + \(chainCount) chain certificate\(chainCount == 1 ? "" : "s")" : ""
        let kind: CredentialReport.Kind = contents.encoding == .pkcs12 ? .pkcs12 : .combinedPEM
        let prefix = contents.encoding == .pkcs12 ? "PKCS#12" : "combined PEM"
        var description = Description(kind: kind, summary: "\(prefix): \(pairs.count) identities (certificate + matching key each)\(chainPart)")
        description.findings.append(Finding(.warning, "multipleIdentities",
                                            "the file holds \(pairs.count) identities (key + certificate pairs): \(pairs.map(contents.describe).joined(separator: "; ")); a sender presents one, so one must be chosen when splitting or preparing it"))
        let unpaired = contents.privateKeys.count - pairs.count
        if unpaired > 0 {
            description.findings.append(Finding(.warning, "multipleKeys", "the file holds \(contents.privateKeys.count) private keys, \(unpaired) of them without a certificate"))
        }
        description.findings += lockedKeyFindings(contents)
        return description
    }

    /// A key that stayed encrypted (no passphrase given): the certificates were read, the key
    /// was not, so its match is unknown rather than assumed.
    static func lockedKeyFindings(_ contents: CredentialContents) -> [Finding] {
        contents.lockedKeys.map { Finding(.warning, "keyNotChecked", $0) }
    }

    /// A `.p8` holding a public key only: it can never sign a provider token.
    static func describePublicAuthKey(path: String) -> Description {
        let keyID = authKeyID(path)
        var description = Description(kind: .authKey, summary: "APNs auth key (.p8): public key only" + (keyID.map { ", key id \($0)" } ?? ""))
        description.authKey = CredentialReport.AuthKeyInfo(keyID: keyID, curve: "public key only", usable: false)
        description.findings.append(Finding(.error, "publicKeyOnly", "the file holds only a public key, which can never sign a provider token; token auth needs the private key Apple offers for download once (make a new key in the developer portal if it is lost)"))
        return description
    }

    /// A token-auth key: must be EC P-256, and its id comes from Apple's file name.
    static func describeAuthKey(_ key: PrivateKey, path: String) -> Description {
        let keyID = authKeyID(path)
        let usable = key.curveName == "P-256"
        var description = Description(kind: .authKey, summary: "APNs auth key (.p8): \(key.summary)" + (keyID.map { ", key id \($0)" } ?? ""))
        description.authKey = CredentialReport.AuthKeyInfo(keyID: keyID, curve: key.curveName ?? key.summary, usable: usable)
        if !usable {
            description.findings.append(Finding(.error, "notAuthKey", "APNs auth keys are EC P-256; this is \(key.summary), so APNs will reject tokens signed with it"))
        }
        if keyID == nil {
            description.findings.append(Finding(.warning, "noKeyID", "the file name does not carry the key id; Apple names it AuthKey_<KEYID>.p8 and token auth needs that id"))
        }
        return description
    }

    static func describeKey(_ key: PrivateKey, _ contents: CredentialContents) -> Description {
        let kind: CredentialReport.Kind = contents.encoding == .pkcs12 ? .pkcs12 : .privateKey
        let prefix = contents.encoding == .pkcs12 ? "PKCS#12: private key only" : "private key"
        return Description(kind: kind, summary: "\(prefix): \(key.summary)\(contents.hadEncryptedKey ? " (encrypted)" : "")")
    }

    static func describeRequest(_ request: CertificateSigningRequest, key: PrivateKey?) -> Description {
        var description = Description(kind: .certificateRequest,
                                      summary: "certificate signing request: \(request.publicKeySummary) key, subject \(request.subject.description)")
        if !request.signatureIsValid {
            description.findings.append(Finding(.error, "badRequestSignature", "the request's signature does not verify; make a new CSR"))
        }
        if let key, !request.matches(key) {
            description.findings.append(Finding(.error, "keyMismatch", "the private key is not the request's key"))
        }
        return description
    }

    /// `.p8` files and `AuthKey_*` names are token-auth keys, whatever the key inside.
    static func looksLikeAuthKey(_ path: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        return name.lowercased().hasSuffix(".p8") || name.hasPrefix("AuthKey_")
    }

    /// `ABC123DEFG` from `AuthKey_ABC123DEFG.p8`.
    static func authKeyID(_ path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        guard name.hasPrefix("AuthKey_") else { return nil }
        let rest = name.dropFirst("AuthKey_".count)
        let id = rest.prefix { $0 != "." }
        guard id.count == 10, id.allSatisfy({ ($0.isASCII && $0.isUppercase) || $0.isNumber }) else { return nil }
        return String(id)
    }
}
