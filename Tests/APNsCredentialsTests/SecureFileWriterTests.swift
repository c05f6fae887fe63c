// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import SecureIO
import Foundation
import Testing
import TestSupport

@Suite("Atomic, permission-safe output files")
struct SecureFileWriterTests {
    @Test("Secrets are 0600, public files 0644, and no temporary file is left behind")
    func modes() async throws {
        let dir = try TemporaryDirectory()
        try SecureFileWriter.write(Array("secret".utf8), to: dir.file("key.pem"), sensitivity: .secret, force: false)
        try SecureFileWriter.write(Array("public".utf8), to: dir.file("cert.pem"), sensitivity: .public, force: false)
        #expect(try dir.mode("key.pem") == 0o600)
        #expect(try dir.mode("cert.pem") == 0o644)
        #expect(try dir.entries() == ["cert.pem", "key.pem"])
    }

    @Test("An existing file is never replaced without force, and is replaced atomically with it")
    func overwrite() async throws {
        let dir = try TemporaryDirectory()
        let path = try dir.write("out.pem", text: "old")
        let error = #expect(throws: APNsCredentialError.self) {
            try SecureFileWriter.write(Array("new".utf8), to: path, sensitivity: .secret, force: false)
        }
        #expect(error?.kind == .outputExists)
        #expect(error?.message.contains("--force") == false)
        #expect(error?.remedy == .replaceOutput)
        #expect(String(decoding: try dir.read("out.pem"), as: UTF8.self) == "old")
        try SecureFileWriter.write(Array("new".utf8), to: path, sensitivity: .secret, force: true)
        #expect(String(decoding: try dir.read("out.pem"), as: UTF8.self) == "new")
        #expect(try dir.mode("out.pem") == 0o600)
        #expect(try dir.entries() == ["out.pem"])
    }

    @Test("A missing or unwritable folder is a clear error before anything is written")
    func badFolders() async throws {
        let dir = try TemporaryDirectory()
        let missing = #expect(throws: APNsCredentialError.self) {
            try SecureFileWriter.write([1], to: dir.file("nope/out.pem"), sensitivity: .secret, force: false)
        }
        #expect(missing?.kind == .outputFailed)
        #expect(missing?.message.contains("does not exist") == true)
        if getuid() != 0 {
            try FileManager.default.createDirectory(atPath: dir.file("ro"), withIntermediateDirectories: false, attributes: [.posixPermissions: 0o500])
            #expect(throws: APNsCredentialError.self) { try SecureFileWriter.write([1], to: dir.file("ro/out.pem"), sensitivity: .secret, force: false) }
        }
    }
}

@Suite("Output paths")
struct OutputPathTests {
    @Test("One-character and bare names work (Foundation's path helpers trap on them)", arguments: ["x", "k.pem", "./y"])
    func shortNames(name: String) async throws {
        let dir = try TemporaryDirectory()
        let previous = FileManager.default.currentDirectoryPath
        // Write by absolute path built from a relative-looking name.
        try SecureFileWriter.write([1, 2], to: "\(dir.path)/\(name)", sensitivity: .secret, force: false)
        #expect(FileManager.default.fileExists(atPath: "\(dir.path)/\(name)"))
        #expect(FileManager.default.currentDirectoryPath == previous)
    }
}

@Suite("Streamed atomic files")
struct AtomicFileTests {
    @Test("Nothing is visible until commit; an abandoned file leaves nothing behind")
    func streaming() async throws {
        let dir = try TemporaryDirectory()
        do {
            let file = try AtomicFile(path: dir.file("results.jsonl"), sensitivity: .public, force: false)
            for index in 0..<20_000 { try file.append(Array("{\"n\":\(index)}\n".utf8)) }
            #expect(try dir.entries().isEmpty, "not visible before commit")
            try file.commit()
        }
        #expect(try dir.read("results.jsonl").count > 200_000)
        do {
            let abandoned = try AtomicFile(path: dir.file("partial.jsonl"), sensitivity: .public, force: false)
            try abandoned.append(Array(repeating: 0x41, count: 200_000))
        }
        #expect(try dir.entries() == ["results.jsonl"])
    }
}
