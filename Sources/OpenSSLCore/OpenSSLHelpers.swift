// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
package import COpenSSL
internal import CShims
import Foundation

/// Frees memory OpenSSL allocated for us (OPENSSL_free is a macro Swift cannot call).
package func opensslFree(_ pointer: UnsafeMutableRawPointer?) { shim_OPENSSL_free(pointer) }

/// Lends `pointer`, which `owner` owns and frees, to `body`: the scoped access every owner of
/// an OpenSSL object gives (its `withUnsafePointer`) instead of a stored raw pointer. It keeps
/// two promises a `let pointer` read from outside did not: the owner is alive until `body`
/// returns (after a plain read Swift may release the owner before the C call runs, and its
/// deinit frees the object under it), and the call site shows how long it uses the object.
/// `body` must not keep the pointer, nor free it.
package func lendOpenSSLObject<Owner: AnyObject, Pointer, Result, Failure: Error>(
    _ pointer: Pointer, of owner: Owner, to body: (Pointer) throws(Failure) -> Result
) throws(Failure) -> Result {
    defer { withExtendedLifetime(owner) {} }
    return try body(pointer)
}

/// A Swift owner of one OpenSSL object (the one type that frees it), which lends the object
/// for the length of a closure instead of exposing a pointer.
package protocol OpenSSLObjectOwner: AnyObject {
    func withUnsafePointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result
}

/// `owner`'s object lent to `body`, or nil without an owner (OpenSSL's optional arguments).
package func withOptionalPointer<Result, Failure: Error>(
    _ owner: (some OpenSSLObjectOwner)?, _ body: (OpaquePointer?) throws(Failure) -> Result
) throws(Failure) -> Result {
    guard let owner else { return try body(nil) }
    return try owner.withUnsafePointer { (pointer) throws(Failure) -> Result in try body(pointer) }
}

/// Converts an ASN1_TIME to a Date (UTC); nil when OpenSSL cannot read it.
package func date(from time: UnsafePointer<ASN1_TIME>?) -> Date? {
    guard let time else { return nil }
    var parts = tm()
    guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
    return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
}

/// Lower-case hex, optionally separated (fingerprints print as `AB:CD:...`).
package func hex(_ bytes: some Sequence<UInt8>, separator: String = "", uppercase: Bool = false) -> String {
    let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
    var parts: [String] = []
    for byte in bytes {
        parts.append(String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self))
    }
    return parts.joined(separator: separator)
}

/// Runs an i2d-style encoder into a Swift array.
package func derEncode(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8]? {
    let length = encode(nil)
    guard length > 0 else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(length))
    let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
        return encode(&cursor)
    }
    return written == length ? bytes : nil
}

/// A label for messages: the file's path, "standard input", or "environment variable VAR".
package func displayName(_ path: String) -> String {
    if path == "-" { return "standard input" }
    if let variable = CredentialInput.environmentVariable(path) { return "environment variable \(variable)" }
    return path
}
