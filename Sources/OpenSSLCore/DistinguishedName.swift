// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL

/// An X.509 name as an ordered list of attributes, in the order the certificate holds them
/// (Apple's push certificates put UID first: `UID, CN, OU, O, C`).
package struct DistinguishedName: Sendable, Equatable, CustomStringConvertible {
    package struct Attribute: Sendable, Equatable {
        /// OpenSSL's short name: `CN`, `UID`, `OU`, `O`, `C`, `emailAddress`, ...
        package let key: String
        package let value: String
        package init(key: String, value: String) { self.key = key; self.value = value }
    }

    package let attributes: [Attribute]

    package init(_ attributes: [Attribute]) { self.attributes = attributes }

    /// Reads an `X509_NAME` (borrowed; not freed here).
    package init(borrowing name: OpaquePointer?) {
        var result: [Attribute] = []
        if let name {
            for index in 0..<X509_NAME_entry_count(name) {
                guard let entry = X509_NAME_get_entry(name, index),
                      let object = X509_NAME_ENTRY_get_object(entry),
                      let data = X509_NAME_ENTRY_get_data(entry) else { continue }
                let nid = OBJ_obj2nid(object)
                let key: String
                if nid != NID_undef, let short = OBJ_nid2sn(nid) {
                    key = String(cString: short)
                } else {
                    var buffer = [CChar](repeating: 0, count: 128)
                    OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
                    key = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                }
                result.append(Attribute(key: key, value: Self.utf8(UnsafePointer(data))))
            }
        }
        attributes = result
    }

    /// The first value for `key` (`CN`, `UID`, ...).
    package func first(_ key: String) -> String? { attributes.first { $0.key == key }?.value }

    package var commonName: String? { first("CN") }

    /// `UID=com.example.app, CN=..., OU=..., O=..., C=...`
    package var description: String {
        attributes.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
    }

    static func utf8(_ string: UnsafePointer<ASN1_STRING>) -> String {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = ASN1_STRING_to_UTF8(&out, string)
        guard length >= 0, let out else { return "" }
        defer { opensslFree(out) }
        return String(decoding: UnsafeBufferPointer(start: out, count: Int(length)), as: UTF8.self)
    }
}
