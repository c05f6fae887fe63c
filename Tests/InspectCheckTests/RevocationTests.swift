// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `check --revocation`, `verify`'s revocation step and `mock revoke`, against responders we
/// did not write (`openssl ocsp -index ... -port`) and our mock's responder read by clients we
/// did not write (`openssl ocsp -url`, `curl` + `openssl crl`/`openssl verify -crl_check`).
@Suite struct RevocationTests {
    /// A mock CA whose certificates name `http://127.0.0.1:PORT`, with a good, a revoked and an
    /// unknown (issued, then left out of the index) certificate.
    struct Authority {
        let folder: String
        let port: Int
        /// The port's reservation (`ReservedPort`), held while the authority is in use: the port
        /// is written into the certificates before anything listens on it.
        let reservation: ReservedPort?
        var ca: String { folder + "/ca" }
        var bundle: String { ca + "/ca-bundle.pem" }
        func path(_ name: String) -> String { folder + "/" + name }

        /// `port`: a port the test holds itself (a silent listener's); nil reserves one.
        static func make(port given: Int? = nil) async throws -> Authority {
            let reservation = given == nil ? ReservedPort() : nil
            let port = given ?? reservation?.port ?? 0
            let folder = NSTemporaryDirectory() + "apnskit-revocation-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            RemovedAtExit.add(folder)
            let authority = Authority(folder: folder, port: port, reservation: reservation)
            try await authority.expect(["apnskit", "mock", "ca", "-o", authority.ca, "--revocation-url", "http://127.0.0.1:\(port)"])
            try await authority.expect(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                        "-keyout", authority.path("key.pem"), "-subj", "/CN=push", "-out", authority.path("push.csr")])
            for name in ["good", "revoked", "unknown"] {
                try await authority.expect(["apnskit", "mock", "issue", authority.path("push.csr"), "--ca", authority.ca,
                                            "--bundle-id", "com.example.app", "-o", authority.path("\(name).cer")])
                try await authority.expect(["openssl", "x509", "-inform", "DER", "-in", authority.path("\(name).cer"), "-out", authority.path("\(name).pem")])
                let combined = try Data(contentsOf: URL(fileURLWithPath: authority.path("\(name).pem"))) + Data(contentsOf: URL(fileURLWithPath: authority.path("key.pem")))
                try combined.write(to: URL(fileURLWithPath: authority.path("\(name)-identity.pem")))
            }
            try await authority.expect(["apnskit", "mock", "revoke", authority.path("revoked.cer"), "--ca", authority.ca,
                                        "--reason", "keyCompromise", "--date", "2026-11-01"])
            // "unknown": the responder has no line for it.
            let serial = try await run(["openssl", "x509", "-in", authority.path("unknown.pem"), "-noout", "-serial"]).out
                .trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "serial=", with: "")
            let index = authority.ca + "/index.txt"
            let kept = try String(contentsOfFile: index, encoding: .utf8).split(separator: "\n").filter { !$0.contains(serial) }
            try (kept.joined(separator: "\n") + "\n").write(toFile: index, atomically: true, encoding: .utf8)
            return authority
        }

        func expect(_ arguments: [String]) async throws {
            let result = try await run(arguments)
            guard result.status == 0 else { throw RevocationFixtureError(description: "\(arguments.prefix(3).joined(separator: " ")) failed: \(result.err)") }
        }

        /// `mock serve` for this CA (its revocation service listens on `port`).
        func serve(_ extra: [String] = []) async throws -> BackgroundProcess {
            try await BackgroundProcess.mockServe(["--ca", ca, "--port", "0", "--no-legacy", "--no-feedback", "-q"] + extra,
                                                  portsFile: path("ports-\(UUID().uuidString).json")).server
        }
    }

    struct RevocationFixtureError: Error, CustomStringConvertible { let description: String }

    func lines(_ output: String) -> [String] { output.split(separator: "\n").map(String.init) }

    @Test func checkSaysGoodRevokedAndUnknownFromTheMock() async throws {
        let authority = try await Authority.make()
        let server = try await authority.serve()
        defer { server.kill() }
        let result = try await run(["apnskit", "check", "--revocation", "--ca-file", authority.bundle,
                                    authority.path("good.cer"), authority.path("revoked.cer"), authority.path("unknown.cer")])
        #expect(result.status == 1)
        let text = lines(result.out)
        #expect(text[0].hasPrefix("OK ") && text[0].contains("not revoked (OCSP http://127.0.0.1:\(authority.port)/ocsp)"), "\(result.out)")
        #expect(text[1].hasPrefix("FAIL ") && text[1].contains("REVOKED on 2026-11-01 (keyCompromise)"), "\(result.out)")
        #expect(text[2].hasPrefix("WARN ") && text[2].contains("does not know this certificate"), "\(result.out)")
        // The JSON carries the answer per certificate.
        let json = try await run(["apnskit", "check", "--revocation", "--ca-file", authority.bundle, authority.path("revoked.cer"), "--format", "json"])
        let results = try #require(try json.json()["results"] as? [[String: Any]])
        let revocation = try #require((results.first?["certificates"] as? [[String: Any]])?.first?["revocation"] as? [String: Any])
        #expect(revocation["status"] as? String == "revoked" && revocation["reason"] as? String == "keyCompromise"
                && revocation["method"] as? String == "ocsp" && (revocation["revokedAt"] as? String)?.hasPrefix("2026-11-01") == true, "\(revocation)")
        // Prometheus: read back by the prometheus-client parser.
        let prometheus = try await run(["apnskit", "check", "--revocation", "--ca-file", authority.bundle, authority.path("good.cer"),
                                        authority.path("revoked.cer"), "--format", "prometheus"])
        let parse = """
        import sys
        from prometheus_client.parser import text_string_to_metric_families
        for family in text_string_to_metric_families(sys.stdin.read()):
            if family.name == "apns_certificate_revoked":
                print(" ".join(f"{s.labels['file'].rsplit('/', 1)[-1]}={int(s.value)}" for s in family.samples))
        """
        let parsed = try await ProcessRunner.run("python3", ["-c", parse], stdin: Data(prometheus.out.utf8))
        #expect(parsed.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "good.cer=0 revoked.cer=1", "\(parsed.stdout) \(parsed.stderr)")
    }

    @Test func ourClientReadsOpenSSLsResponder() async throws {
        let authority = try await Authority.make()
        // openssl ocsp answers for the CA from the same index.txt, on the port the certificates name
        // (it takes a port only, and listens on the loopback as on every address).
        let responder = try BackgroundProcess("openssl", ["ocsp", "-index", authority.ca + "/index.txt", "-port", String(authority.port),
                                                          "-rsigner", authority.ca + "/wwdr.pem", "-rkey", authority.ca + "/wwdr-key.pem",
                                                          "-CA", authority.ca + "/wwdr.pem", "-nmin", "60"], combineOutput: true)
        defer { responder.kill() }
        // Its server is single-threaded: a readiness probe's connection would hold it, so wait
        // for its own line instead.
        #expect(await responder.waitForStdoutLine(containing: "waiting for OCSP client connections") != nil, "\(responder.stdout)")
        let result = try await run(["apnskit", "check", "--revocation", "--ca-file", authority.bundle, authority.path("good.cer"), authority.path("revoked.cer")])
        let text = lines(result.out)
        #expect(result.status == 1)
        #expect(text[0].hasPrefix("OK ") && text[0].contains("not revoked (OCSP"), "\(result.out)")
        #expect(text[1].hasPrefix("FAIL ") && text[1].contains("REVOKED on 2026-11-01 (keyCompromise)"), "\(result.out)")
    }

    @Test func openSSLReadsOurResponderAndCRL() async throws {
        let authority = try await Authority.make()
        let server = try await authority.serve()
        defer { server.kill() }
        for (name, word) in [("good", "good"), ("revoked", "revoked"), ("unknown", "unknown")] {
            let answer = try await run(["openssl", "ocsp", "-issuer", authority.ca + "/wwdr.pem", "-cert", authority.path("\(name).pem"),
                                        "-url", "http://127.0.0.1:\(authority.port)/ocsp", "-CAfile", authority.bundle])
            #expect(answer.out.contains("\(name).pem: \(word)") && answer.err.contains("Response verify OK"), "\(answer.out) \(answer.err)")
        }
        let crl = authority.path("wwdr.crl")
        #expect(try await run(["curl", "--silent", "--fail", "-o", crl, "http://127.0.0.1:\(authority.port)/wwdr.crl"]).status == 0)
        let pem = try await run(["openssl", "crl", "-inform", "DER", "-in", crl, "-out", crl + ".pem"])
        #expect(pem.status == 0, "\(pem.err)")
        let revoked = try await run(["openssl", "verify", "-crl_check", "-CRLfile", crl + ".pem", "-CAfile", authority.bundle, authority.path("revoked.pem")])
        #expect(revoked.status != 0 && (revoked.out + revoked.err).contains("certificate revoked"), "\(revoked.out) \(revoked.err)")
        let good = try await run(["openssl", "verify", "-crl_check", "-CRLfile", crl + ".pem", "-CAfile", authority.bundle, authority.path("good.pem")])
        #expect(good.status == 0, "\(good.out) \(good.err)")
    }

    @Test(arguments: [("stale", "is stale: its next update was due"), ("wrong-signer", "is not signed by the certificate's issuer")])
    func unusableAnswersAreWarningsOrFailures(fault: String, sentence: String) async throws {
        let authority = try await Authority.make()
        let server = try await authority.serve(["--revocation-fault", fault])
        defer { server.kill() }
        let warned = try await run(["apnskit", "check", "--revocation", "--ca-file", authority.bundle, authority.path("revoked.cer")])
        #expect(warned.status == 0 && warned.out.hasPrefix("WARN ") && warned.out.contains(sentence), "\(warned.out)")
        let failed = try await run(["apnskit", "check", "--revocation=require", "--ca-file", authority.bundle, authority.path("good.cer")])
        #expect(failed.status == 1 && failed.out.hasPrefix("FAIL ") && failed.out.contains("(--revocation-required)"), "\(failed.out)")
    }

    /// Issue 31: 64 `POST /ocsp` whose bodies never finish held every slot of the responder,
    /// so `check --revocation` warned (failed with `=require`). Slow connections now yield
    /// their slots and are closed at the 10 s request deadline.
    @Test func slowRequestsDoNotLockTheResponder() async throws {
        let authority = try await Authority.make()
        let server = try await authority.serve()
        defer { server.kill() }
        let head = Array("POST /ocsp HTTP/1.1\r\nHost: 127.0.0.1:\(authority.port)\r\nContent-Type: application/ocsp-request\r\nContent-Length: 1000\r\n\r\n0".utf8)
        var slow: [Int32] = []
        defer { slow.forEach { close($0) } }
        for _ in 0..<64 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(authority.port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            if connected == 0, send(fd, head, head.count, Int32(MSG_NOSIGNAL)) == head.count { slow.append(fd) } else { close(fd) }
        }
        #expect(slow.count == 64)
        // A second for the slow ones to count as slow (they yield after one). Not a wait for an
        // event: their age is what the responder's rule looks at.
        try await Task.sleep(for: .seconds(1.5))
        let result = try await run(["apnskit", "check", "--revocation=require", "--revocation-timeout", "5", "--ca-file", authority.bundle, authority.path("good.cer")])
        #expect(result.status == 0 && result.out.hasPrefix("OK ") && result.out.contains("not revoked (OCSP"), "\(result.out)")
        // Each slow one is closed: for the new connection, or at the 10 s deadline (bound: 3 times that).
        let deadline = Date().addingTimeInterval(30)
        var buffer = [UInt8](repeating: 0, count: 1024)
        let closed = slow.filter { fd in
            while deadline.timeIntervalSinceNow > 0 {
                var timeout = timeval(tv_sec: max(1, Int(deadline.timeIntervalSinceNow)), tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                let count = read(fd, &buffer, buffer.count)
                if count > 0 { continue }
                if count < 0, errno == EAGAIN || errno == EINTR { continue }
                return count == 0 || errno == ECONNRESET
            }
            return false
        }.count
        #expect(closed == 64, "\(closed) of 64 slow connections closed")
    }

    /// Issue 31's revocation lows, through the mock's faults: a CRL dated a year ahead is no
    /// answer (not even with `=require`); OCSP's unknown does not hide the CRL's revoked; an
    /// HTTP 500 is said as such.
    @Test func futureListsUnknownAnswersAndErrorStatuses() async throws {
        let authority = try await Authority.make()
        do {
            let server = try await authority.serve(["--revocation-fault", "future"])
            defer { server.kill() }
            let required = try await run(["apnskit", "check", "--revocation=require", "--ca-file", authority.bundle, authority.path("good.cer")])
            #expect(required.status == 1 && required.out.hasPrefix("FAIL ") && required.out.contains("in the future (its thisUpdate)"), "\(required.out)")
            #expect(await server.stop() == 143)
        }
        do {
            let server = try await authority.serve(["--revocation-fault", "ocsp-unknown"])
            defer { server.kill() }
            let revoked = try await run(["apnskit", "check", "--revocation", "--ca-file", authority.bundle, authority.path("revoked.cer")])
            #expect(revoked.status == 1 && revoked.out.hasPrefix("FAIL ") && revoked.out.contains("REVOKED on 2026-11-01 (keyCompromise)")
                    && revoked.out.contains("CRL"), "\(revoked.out)")
            let good = try await run(["apnskit", "check", "--revocation", "--ca-file", authority.bundle, authority.path("good.cer")])
            #expect(good.status == 0 && good.out.hasPrefix("WARN ") && good.out.contains("does not know this certificate"), "\(good.out)")
            #expect(await server.stop() == 143)
        }
        do {
            let server = try await authority.serve(["--revocation-fault", "http-500"])
            defer { server.kill() }
            let failed = try await run(["apnskit", "check", "--revocation", "--revocation-timeout", "3", "--ca-file", authority.bundle, authority.path("good.cer")])
            #expect(failed.status == 0 && failed.out.hasPrefix("WARN ") && failed.out.contains("answered HTTP 500"), "\(failed.out)")
            #expect(!failed.out.contains("did not answer within"), "\(failed.out)")
            #expect(await server.stop() == 143)
        }
    }

    @Test func aResponderThatNeverAnswersIsBounded() async throws {
        let silent = SilentListener()
        let authority = try await Authority.make(port: silent.port)
        let result = try await run(["apnskit", "check", "--revocation", "--revocation-timeout", "2", "--ca-file", authority.bundle, authority.path("good.cer")])
        #expect(result.status == 0 && result.out.hasPrefix("WARN "), "\(result.out)")
        #expect(result.out.contains("did not answer within 2 seconds"), "\(result.out)")
        withExtendedLifetime(silent) {}
    }

    @Test func verifyStopsAtARevokedCertificate() async throws {
        let authority = try await Authority.make()
        let server = try await authority.serve()
        defer { server.kill() }
        let ports = try #require(FileManager.default.contentsOfDirectory(atPath: authority.folder).first { $0.hasPrefix("ports-") })
        let provider = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: authority.path(ports)))) as? [String: Any])?["provider"] as? Int)
        let revoked = try await run(["apnskit", "verify", authority.path("revoked-identity.pem"), "--gateway", "127.0.0.1:\(provider)", "--ca-file", authority.bundle])
        #expect(revoked.status == 1, "\(revoked.out)")
        #expect(revoked.out.contains("revocation         REVOKED on 2026-11-01") && !revoked.out.contains("  connect "), "\(revoked.out)")
        #expect(revoked.err.contains("The certificate was revoked on 2026-11-01 (keyCompromise)"), "\(revoked.err)")
        let good = try await run(["apnskit", "verify", authority.path("good-identity.pem"), "--gateway", "127.0.0.1:\(provider)", "--ca-file", authority.bundle, "--format", "json"])
        #expect(good.status == 0, "\(good.out) \(good.err)")
        #expect(((try good.json())["revocation"] as? [String: Any])?["status"] as? String == "good", "\(good.out)")
        let skipped = try await run(["apnskit", "verify", authority.path("revoked-identity.pem"), "--gateway", "127.0.0.1:\(provider)",
                                     "--ca-file", authority.bundle, "--no-revocation"])
        #expect(skipped.status == 0 && !skipped.out.contains("revocation"), "the mock gateway itself accepts it: \(skipped.out)")
    }

    @Test func mockRevokeRefusesWhatTheCADidNotIssue() async throws {
        let authority = try await Authority.make()
        let other = try await Authority.make()
        let foreign = try await run(["apnskit", "mock", "revoke", other.path("good.cer"), "--ca", authority.ca])
        #expect(foreign.status == 3 && foreign.err.contains("was not issued by the mock CA"), "\(foreign.err)")
        let reason = try await run(["apnskit", "mock", "revoke", authority.path("good.cer"), "--ca", authority.ca, "--reason", "bored"])
        #expect(reason.status == 2 && reason.err.contains("not an RFC 5280 reason"), "\(reason.err)")
    }
}
