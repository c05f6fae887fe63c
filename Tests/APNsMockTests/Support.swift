// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsMock
import Foundation
import TestSupport

/// One CA and one key for the whole target: RSA key generation is the slow part of making
/// fixtures, and nothing in these tests depends on keys being distinct.
enum Shared {
    static let ca = Result { try MockCA.create() }
    static let key = Result { try PrivateKey.generate(.rsa2048) }
}

/// Runs a program (the `openssl` CLI) and returns its exit status and output.
@discardableResult
func run(_ arguments: [String], stdin: [UInt8]? = nil) async throws -> (status: Int32, out: String, err: String) {
    let result = try await ProcessRunner.run(arguments[0], Array(arguments.dropFirst()), stdin: stdin.map { Data($0) })
    return (result.status, result.stdout, result.stderr)
}

/// A fresh temporary folder, removed by the caller with `cleanup`.
func temporaryFolder() throws -> String {
    let path = NSTemporaryDirectory() + "apnsmock-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func cleanup(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

func write(_ bytes: [UInt8], _ path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}
