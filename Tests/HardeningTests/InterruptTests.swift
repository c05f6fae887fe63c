// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

extension Hardening {
    /// Issue 7: `kill -9` at any moment of a write leaves either nothing or the complete file,
    /// and never a temporary file (outputs go to an unnamed O_TMPFILE, linked in when complete).
    @Suite("Hardening: killed writes leave nothing behind")
    struct InterruptTests {
        /// Starts apnskit, SIGKILLs it after `delay` seconds (if still running); returns whether
        /// the kill landed before it finished.
        static func killed(_ arguments: [String], after delay: Double, in folder: String, environment: [String: String] = [:]) async throws -> Bool {
            let process = try BackgroundProcess(Binaries.apnskit, arguments, environment: environment, directory: folder)
            // The delay is what the test varies (where in the write the kill lands), not a wait
            // for an event.
            try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
            let wasRunning = process.isRunning
            process.kill()
            let end = await process.exited()
            return wasRunning && end.signaled
        }

        /// After a kill: the folder holds exactly `before`, or `before` plus a complete `output`
        /// (checked by `verify`, then removed for the next round).
        static func expectClean(_ w: CLIWorkspace, before: [String], output: String, verify: [String]) async throws {
            let entries = try w.dir.entries()
            if entries.contains(output) {
                #expect(entries == (before + [output]).sorted(), "stray files: \(entries)")
                let check = try await Binaries.openssl(verify, directory: w.dir.path)
                #expect(check.status == 0, "a complete \(output) was expected after the kill: \(check)")
                try FileManager.default.removeItem(atPath: w.dir.file(output))
            } else {
                #expect(entries == before, "stray files: \(entries)")
            }
        }

        @Test("keygen --type rsa4096 killed at 15 different moments")
        func killKeygen() async throws {
            let w = try await CLIWorkspace.withPushCertificate()
            let before = try w.dir.entries()
            var interrupted = 0
            for round in 0..<15 {
                if try await Self.killed(["keygen", "--type", "rsa4096", "-o", "big.key"], after: 0.02 + Double(round) * 0.04, in: w.dir.path) { interrupted += 1 }
                try await Self.expectClean(w, before: before, output: "big.key", verify: ["pkey", "-in", "big.key", "-noout"])
            }
            #expect(interrupted > 0, "no kill landed while keygen was running")
        }

        @Test("p12 create with a 3,000-certificate chain killed at 12 different moments")
        func killLargeP12Create() async throws {
            let w = try await CLIWorkspace.withPushCertificate()
            let one = try w.dir.read("ca/wwdr.pem")
            _ = try w.dir.write("big-chain.pem", Array((0..<3000).map { _ in one }.joined()))
            let before = try w.dir.entries()
            var interrupted = 0
            for round in 0..<12 {
                if try await Self.killed(["p12", "create", "push.cer", "push.key", "--chain", "big-chain.pem", "--passout", "env:P", "-o", "big.p12"],
                                   after: 0.02 + Double(round) * 0.05, in: w.dir.path, environment: ["P": "kill-pass"]) { interrupted += 1 }
                try await Self.expectClean(w, before: before, output: "big.p12", verify: ["pkcs12", "-in", "big.p12", "-passin", "pass:kill-pass", "-noout"])
            }
            #expect(interrupted > 0, "no kill landed while p12 create was running")
        }
    }
}
