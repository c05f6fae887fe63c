import APNsCredentials
import APNsMock
import Foundation

/// One CA and one key for the whole target: RSA key generation is the slow part of making
/// fixtures, and nothing in these tests depends on keys being distinct.
enum Shared {
    static let ca = Result { try MockCA.create() }
    static let key = Result { try PrivateKey.generate(.rsa2048) }
}

/// Runs a program (the `openssl` CLI) and returns its exit status and output.
@discardableResult
func run(_ arguments: [String], stdin: [UInt8]? = nil) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin)) }
    try input.fileHandleForWriting.close()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
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
