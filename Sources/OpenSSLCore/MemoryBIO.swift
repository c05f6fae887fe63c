// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL
internal import CShims
import Foundation

/// Owns one OpenSSL memory BIO: the bridge between Swift bytes and OpenSSL's readers/writers.
///
/// Mutable (every read and write moves it) and so not `Sendable`: one is made, filled or
/// drained by one call site and dropped. OpenSSL calls reach it through `withUnsafePointer`.
package final class MemoryBIO: OpenSSLObjectOwner {
    private let pointer: OpaquePointer

    /// An empty, writable BIO.
    package init() throws {
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw CredentialError.openssl(.internalFailure, "OpenSSL could not allocate a memory buffer.")
        }
        pointer = bio
    }

    /// A BIO holding a copy of `bytes`, positioned at the start.
    package convenience init(_ bytes: some Collection<UInt8>) throws {
        try self.init()
        let array = Array(bytes)
        if !array.isEmpty {
            let written = array.withUnsafeBytes { BIO_write(pointer, $0.baseAddress, Int32($0.count)) }
            guard written == Int32(array.count) else {
                throw CredentialError.openssl(.internalFailure, "OpenSSL could not buffer the input.")
            }
        }
    }

    /// Takes ownership of a BIO OpenSSL returned (a response body): freed with this object.
    package init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { BIO_free(pointer) }

    /// Lends the `BIO` to `body` (`lendOpenSSLObject`); the pointer must not outlive the call.
    package func withUnsafePointer<Result, Failure: Error>(_ body: (OpaquePointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try lendOpenSSLObject(pointer, of: self, to: body)
    }

    /// Everything written so far.
    package var bytes: [UInt8] {
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = shim_BIO_get_mem_data(pointer, &data)
        guard length > 0, let data else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    package var data: Data { Data(bytes) }
}
