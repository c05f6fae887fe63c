// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsCredentials
import OpenSSLCore
import APNsProtocol
import APNsSender
import CLIFormats
import Foundation
import Testing
import TestSupport

extension Hardening {
    /// Issue 7, resource bounds: oversized or hostile inputs are refused or bounded with a clear
    /// error, without memory growing with the input.
    @Suite("Hardening: resource bounds")
    struct BoundsTests {
        /// Runs apnskit under GNU time; returns the result and the child's peak RSS in KiB.
        static func measured(_ shell: String, in folder: String) async throws -> (ProcessResult, Int) {
            let result = try await ProcessRunner.run("/bin/sh", ["-c", shell], directory: folder)
            let line = result.stderr.split(separator: "\n").last { $0.hasPrefix("maxrss=") } ?? ""
            return (result, Int(line.dropFirst("maxrss=".count)) ?? -1)
        }

        @Test("A 100 MB \"PEM\" file and a 100 MB stdin are refused at 16 MiB, reading no more than that")
        func hugePEM() async throws {
            let dir = try TemporaryDirectory("apnskit-bounds")
            // Sparse: 100 MB long, a few bytes on disk.
            let path = dir.file("huge.pem")
            #expect(FileManager.default.createFile(atPath: path, contents: Data("-----BEGIN CERTIFICATE-----\n".utf8)))
            #expect(truncate(path, 100 * 1_048_576) == 0)
            #expect(throws: APNsCredentialError.self) { try CredentialFile.readBytes(path) }
            let time = "/usr/bin/time -f maxrss=%M"
            let (file, fileRSS) = try await Self.measured("\(time) '\(Binaries.apnskit)' inspect huge.pem", in: dir.path)
            #expect(file.status == 3 && file.stdout.contains("larger than 16 MiB"), "\(file)")
            // Regression: stdin was read to the end before the size check (100 MB in cost 127 MB).
            let (piped, pipedRSS) = try await Self.measured("head -c 104857600 /dev/zero | \(time) '\(Binaries.apnskit)' inspect -", in: dir.path)
            #expect(piped.status == 3 && piped.stdout.contains("larger than 16 MiB"), "\(piped)")
            // 16 MiB read + runtime is about 40 MB; all 100 MB would be well over 100 MB.
            #expect(fileRSS > 0 && fileRSS < 80_000, "peak RSS \(fileRSS) KiB")
            #expect(pipedRSS > 0 && pipedRSS < 80_000, "peak RSS \(pipedRSS) KiB")
        }

        @Test("A .p12 with 10,000 certificate bags (openssl pkcs12 -export) is refused with a clear error")
        func manyBags() async throws {
            let w = try await CLIWorkspace.withPushCertificate()
            let one = try w.dir.read("ca/wwdr.pem")
            _ = try w.dir.write("chain.pem", Array((0..<10_000).map { _ in one }.joined()))
            let cert = try await Binaries.openssl(["x509", "-inform", "DER", "-in", "push.cer", "-out", "push.pem"], directory: w.dir.path)
            #expect(cert.status == 0, "\(cert)")
            let made = try await Binaries.openssl(["pkcs12", "-export", "-in", "push.pem", "-inkey", "push.key", "-certfile", "chain.pem",
                                             "-passout", "pass:many", "-out", "many.p12"], directory: w.dir.path)
            #expect(made.status == 0, "\(made)")
            let environment = ["P": "many"]
            let inspect = try await w.run(["inspect", "many.p12", "--passin", "env:P"], environment: environment)
            #expect(inspect.status == 3 && inspect.stdout.contains("holds 10001 certificates"), "\(inspect)")
            let split = try await w.run(["p12", "split", "many.p12", "--passin", "env:P", "--cert-out", "c.pem", "--chain-out", "ch.pem"], environment: environment)
            #expect(split.status == 3 && split.stderr.contains("holds 10001 certificates"), "\(split)")
            #expect(!w.dir.exists("c.pem") && !w.dir.exists("ch.pem"))
            // At the limit it still works: 99 chain certificates + the leaf.
            _ = try w.dir.write("chain99.pem", Array((0..<99).map { _ in one }.joined()))
            let ok = try await Binaries.openssl(["pkcs12", "-export", "-in", "push.pem", "-inkey", "push.key", "-certfile", "chain99.pem",
                                           "-passout", "pass:many", "-out", "ok.p12"], directory: w.dir.path)
            #expect(ok.status == 0)
            try await w.expectSuccess("p12", "split", "ok.p12", "--passin", "env:P", "--cert-out", "c.pem", "--chain-out", "ch.pem", environment: environment)
        }

        @Test("A token file with a 1 GB line (streamed through a FIFO, never on disk) is skipped without buffering it")
        func gigabyteLine() async throws {
            let dir = try TemporaryDirectory("apnskit-bounds")
            let fifo = dir.file("tokens")
            #expect(mkfifo(fifo, 0o600) == 0)
            let token = "c9d4c07cfbbc26d6ef87a44d53e1983fba6e3a1b0b5fc2d5c3c7c2a8e12a3d45"
            let writer = try BackgroundProcess("/bin/sh", ["-c", "{ head -c 1073741824 /dev/zero; printf '\\n%s\\nshort\\n' \(token); } > '\(fifo)'"])
            let before = Self.peakRSS()
            // A gigabyte of reading is CPU work: on a thread of its own, off the cooperative pool.
            let lines = try await Hardening.offPool {
                let reader = try LineReader(path: fifo)
                var lines: [LineReader.Line] = []
                while let line = try reader.next() { lines.append(line) }
                return ReadLines(lines: lines)
            }.lines
            #expect(await writer.exited().status == 0)
            #expect(lines == [.tooLong(number: 1), .text(Array(token.utf8), number: 2), .text(Array("short".utf8), number: 3)])
            // Buffering the line would add at least 1 GiB to this process's peak.
            #expect(Self.peakRSS() - before < 512 * 1024, "peak RSS grew by \(Self.peakRSS() - before) KiB")
            guard case .text(let bytes, _) = lines[1] else { return }
            #expect(BatchLine.parse(bytes) != .skip)
        }

        /// This process's peak RSS in KiB.
        static func peakRSS() -> Int {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return usage.ru_maxrss
        }

        @Test("A payload nested a million levels deep is refused without exhausting the stack")
        func deepJSON() async throws {
            let depth = 1_000_000
            let deep = Array("{\"a\":".utf8) + Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth) + [UInt8(ascii: "}")]
            #expect(!JSONSyntax.isObject(deep))
            #expect(!JSONSyntax.isValue(deep))
            #expect(PayloadCheck.validate(deep, pushType: .alert) != nil)
            let line = Array("c9d4c07cfbbc26d6ef87a44d53e1983fba6e3a1b0b5fc2d5c3c7c2a8e12a3d45 ".utf8) + deep
            #expect(BatchLine.parse(line) == .invalid("The payload after the token is not a JSON object."))
            // At the limit: 63 nested arrays inside the object are fine, 64 are not.
            let limit = JSONSyntax.maximumDepth
            func nested(_ n: Int) -> [UInt8] { Array("{\"a\":".utf8) + Array(repeating: UInt8(ascii: "["), count: n) + Array(repeating: UInt8(ascii: "]"), count: n) + [UInt8(ascii: "}")] }
            #expect(JSONSyntax.isObject(nested(limit - 1)))
            #expect(!JSONSyntax.isObject(nested(limit)))
        }

        @Test("A provider token whose header nests arrays 100,000 deep is refused as malformed")
        func deepTokenHeader() async throws {
            let key = try PrivateKey.generate(.ec256)
            let header = Base64URL.encode(Array(repeating: UInt8(ascii: "["), count: 100_000) + Array(repeating: UInt8(ascii: "]"), count: 100_000))
            let claims = Base64URL.encode(Array(#"{"iss":"TEAM123456","iat":1800000000}"#.utf8))
            let result = ProviderTokenVerifier.verify("\(header).\(claims).AAAA", keys: ["KEYID12345": try PublicKey(of: key)])
            #expect(result == .failure(.malformed))
        }
    }
}

/// Lines read on another thread, handed back once (LineReader.Line is not declared Sendable).
private struct ReadLines: @unchecked Sendable {
    let lines: [LineReader.Line]
}
