// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The attributes PKCS#12 bags carry, which `openssl pkcs12` also prints as "Bag Attributes"
/// above each PEM block: how Keychain, keytool and the rest name an identity and tie a key to
/// its certificate.
package struct BagAttributes: Sendable, Equatable, Codable {
    package var friendlyName: String?
    /// The localKeyId bytes, as lower-case hex in JSON and text.
    package var localKeyID: [UInt8]?

    package init(friendlyName: String? = nil, localKeyID: [UInt8]? = nil) {
        self.friendlyName = friendlyName?.isEmpty == true ? nil : friendlyName
        self.localKeyID = localKeyID?.isEmpty == true ? nil : localKeyID
    }

    package var localKeyIDHex: String? { localKeyID.map { hex($0) } }
}

/// One key + certificate pair in a file: an identity a TLS client can present.
///
/// The pairing is by the keys themselves (the private key is the certificate's), never by
/// position or by localKeyId alone: a file's attributes can be missing or wrong, the keys
/// cannot. The same model serves .p12 and PEM, so both paths say the same about the same content.
package struct KeyCertificatePair: Sendable, Equatable {
    /// 1-based, in the file's order of keys: what `--identity N` picks.
    package let number: Int
    package let certificateIndex: Int
    package let keyIndex: Int
    /// The certificate's friendlyName, else the key's.
    package let friendlyName: String?
    package let localKeyID: [UInt8]?
}

/// How the caller picks one identity from a file that holds several.
package enum IdentitySelector: Sendable, Equatable {
    case number(Int)
    /// A friendlyName or a certificate common name, exactly.
    case name(String)

    /// `2` is a number; anything else is a name.
    package init(parsing text: String) {
        if let number = Int(text) { self = .number(number) } else { self = .name(text) }
    }
}

/// The certificate, key and chain chosen from a file's contents.
package struct IdentitySelection: Sendable {
    package let certificate: Certificate?
    package let privateKey: PrivateKey?
    /// Certificates without a key of their own in the file, the selected one excluded: a leaf
    /// that has its own key is another identity and is never chain.
    package let chain: [Certificate]
    package let pair: KeyCertificatePair?
}

extension CredentialContents {
    /// Every key + certificate pair, in the order of the keys.
    package var identities: [KeyCertificatePair] {
        var result: [KeyCertificatePair] = []
        for (keyIndex, key) in privateKeys.enumerated() {
            guard let certificateIndex = certificates.firstIndex(where: { key.matches($0) }) else { continue }
            let certificateAttributes = attributes(certificate: certificateIndex)
            let keyAttributes = attributes(key: keyIndex)
            result.append(KeyCertificatePair(number: result.count + 1, certificateIndex: certificateIndex, keyIndex: keyIndex,
                                             friendlyName: certificateAttributes.friendlyName ?? keyAttributes.friendlyName,
                                             localKeyID: keyAttributes.localKeyID ?? certificateAttributes.localKeyID))
        }
        return result
    }

    package func attributes(certificate index: Int) -> BagAttributes {
        index < certificateAttributes.count ? certificateAttributes[index] : BagAttributes()
    }

    package func attributes(key index: Int) -> BagAttributes {
        index < keyAttributes.count ? keyAttributes[index] : BagAttributes()
    }

    /// "1: \"Push A\" (CN=..., localKeyId 01ab)": how messages name an identity.
    package func describe(_ pair: KeyCertificatePair) -> String {
        let certificate = certificates[pair.certificateIndex]
        let name = pair.friendlyName.map { "\"\($0)\" " } ?? ""
        let keyID = pair.localKeyID.map { ", localKeyId \(hex($0))" } ?? ""
        return "\(pair.number): \(name)(\(certificate.subject.commonName.map { "CN=\($0)" } ?? certificate.subject.description)\(keyID))"
    }

    /// The identity to use. With one pair (or none) it is that pair (or the lone certificate
    /// and key); with several, `selector` must say which, else `ambiguousIdentity` lists them.
    package func select(_ selector: IdentitySelector?, label: String) throws -> IdentitySelection {
        let pairs = identities
        let pairedCertificates = Set(pairs.map(\.certificateIndex))
        func chain(excluding index: Int?) -> [Certificate] {
            certificates.enumerated().filter { $0.offset != index && !pairedCertificates.contains($0.offset) }.map(\.element)
        }
        if let selector {
            guard let pair = find(selector, in: pairs) else {
                var error = CredentialError(.invalidArgument, "\(label) has no identity \(describe(selector)); it holds \(pairs.isEmpty ? "none" : pairs.map(describe).joined(separator: "; ")).", file: label)
                error.identities = pairs.map(describe)
                throw error
            }
            return IdentitySelection(certificate: certificates[pair.certificateIndex], privateKey: privateKeys[pair.keyIndex],
                                     chain: chain(excluding: pair.certificateIndex), pair: pair)
        }
        if pairs.count > 1 {
            var error = CredentialError(.ambiguousIdentity, "\(label) holds \(pairs.count) identities (key + certificate pairs): \(pairs.map(describe).joined(separator: "; ")); one must be chosen.",
                                        file: label, remedy: .identityChoice)
            error.identities = pairs.map(describe)
            throw error
        }
        if let pair = pairs.first {
            return IdentitySelection(certificate: certificates[pair.certificateIndex], privateKey: privateKeys[pair.keyIndex],
                                     chain: chain(excluding: pair.certificateIndex), pair: pair)
        }
        if privateKeys.count > 1 {
            throw CredentialError(.ambiguousIdentity, "\(label) holds \(privateKeys.count) private keys and none of them belongs to a certificate in it; give a file with one key.", file: label)
        }
        // No pair: a certificate-only export (the end-entity certificate is the one that is not
        // a CA), a key-only export, or a key that does not match (the caller reports that).
        let leafIndex = certificates.isEmpty ? nil : (certificates.firstIndex { !$0.isCA } ?? 0)
        return IdentitySelection(certificate: leafIndex.map { certificates[$0] }, privateKey: privateKeys.first,
                                 chain: chain(excluding: leafIndex), pair: nil)
    }

    private func find(_ selector: IdentitySelector, in pairs: [KeyCertificatePair]) -> KeyCertificatePair? {
        switch selector {
        case .number(let number):
            return pairs.first { $0.number == number }
        case .name(let name):
            return pairs.first { $0.friendlyName == name } ?? pairs.first { certificates[$0.certificateIndex].subject.commonName == name }
        }
    }

    private func describe(_ selector: IdentitySelector) -> String {
        switch selector {
        case .number(let number): return "number \(number)"
        case .name(let name): return "named \"\(name)\""
        }
    }
}
