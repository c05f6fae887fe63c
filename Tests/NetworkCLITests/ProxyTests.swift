// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `--proxy` and the proxy environment against a real proxy we did not write: Debian's
/// tinyproxy, started per test on a loopback port, with and without basic auth, and
/// restricted to CONNECT on port 443 (so it refuses the mock's port). The gateway behind it is
/// `apnskit mock serve`.
@Suite struct ProxyTests {
    struct Setup {
        let folder: String
        let gateway: BackgroundProcess
        let provider: Int
        let feedback: Int
        var ca: String { folder + "/ca" }
        var bundle: String { ca + "/ca-bundle.pem" }
        var identity: String { folder + "/apns.pem" }

        static func make() async throws -> Setup {
            let folder = NSTemporaryDirectory() + "apnskit-proxy-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            RemovedAtExit.add(folder)
            func expect(_ arguments: [String]) async throws {
                let result = try await ProcessRunner.run(arguments[0] == "apnskit" ? Binaries.apnskit : arguments[0], Array(arguments.dropFirst()))
                guard result.status == 0 else { throw ProxySetupError(description: "\(arguments.prefix(3).joined(separator: " ")): \(result.stderr)") }
            }
            try await expect(["apnskit", "mock", "ca", "-o", folder + "/ca"])
            try await expect(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", folder + "/key.pem",
                              "-subj", "/CN=push", "-out", folder + "/push.csr"])
            try await expect(["apnskit", "mock", "issue", folder + "/push.csr", "--ca", folder + "/ca", "--bundle-id", "com.example.app", "-o", folder + "/aps.cer"])
            try await expect(["apnskit", "combine", folder + "/aps.cer", folder + "/key.pem", "-o", folder + "/apns.pem"])
            let (gateway, ports) = try await BackgroundProcess.mockServe(["--ca", folder + "/ca", "--port", "0", "--legacy-port", "0",
                                                                          "--feedback-port", "0", "-q"], portsFile: folder + "/ports.json")
            guard let provider = ports["provider"] as? Int, let feedback = ports["feedback"] as? Int else {
                gateway.kill()
                throw ProxySetupError(description: "the mock's ports file lacks a port: \(ports)")
            }
            return Setup(folder: folder, gateway: gateway, provider: provider, feedback: feedback)
        }

        /// tinyproxy on a reserved loopback port (it refuses port 0) with `extra` configuration lines.
        func proxy(_ extra: [String] = []) async throws -> (BackgroundProcess, Int) {
            let config = folder + "/tinyproxy-\(UUID().uuidString).conf"
            let proxy: BackgroundProcess
            do {
                proxy = try await BackgroundProcess.serving(Binaries.tool("tinyproxy")) { port in
                    try? (["Port \(port)", "Listen 127.0.0.1", "Allow 127.0.0.1", "Timeout 30", "LogLevel Connect"] + extra)
                        .joined(separator: "\n").write(toFile: config, atomically: true, encoding: .utf8)
                    return ["-d", "-c", config]
                }
            } catch {
                throw ProxySetupError(description: "tinyproxy did not start (scripts/setup.sh installs tinyproxy-bin): \(error)")
            }
            return (proxy, proxy.port)
        }

        func apnskit(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
            try await ProcessRunner.run(Binaries.apnskit, arguments, environment: environment)
        }

        var token: String { String(repeating: "ab", count: 32) }
    }

    struct ProxySetupError: Error, CustomStringConvertible { let description: String }

    @Test func verifyPushAndFeedbackGoThroughTheProxy() async throws {
        let setup = try await Setup.make()
        defer { setup.gateway.kill() }
        let (proxy, port) = try await setup.proxy()
        defer { proxy.kill() }
        let via = "http://127.0.0.1:\(port)"
        let verify = try await setup.apnskit(["verify", setup.identity, "--gateway", "127.0.0.1:\(setup.provider)", "--ca-file", setup.bundle, "--proxy", via])
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
        #expect(verify.stdout.contains("proxy              The proxy 127.0.0.1:\(port) opened a tunnel to 127.0.0.1:\(setup.provider)"), "\(verify.stdout)")
        let push = try await setup.apnskit(["push", setup.identity, "--gateway", "127.0.0.1:\(setup.provider)", "--ca-file", setup.bundle, "--proxy", via,
                                            "--token", setup.token, "--alert", "through the proxy"])
        #expect(push.status == 0 && push.stdout.contains("delivered"), "\(push.stdout) \(push.stderr)")
        let feedback = try await setup.apnskit(["feedback", setup.identity, "--gateway", "127.0.0.1:\(setup.feedback)", "--ca-file", setup.bundle, "--proxy", via])
        #expect(feedback.status == 0, "\(feedback.stdout) \(feedback.stderr)")
        // The proxy's own log shows the tunnels it opened: one per command at least.
        #expect(await Wait.until(seconds: 10) { proxy.stdout.components(separatedBy: "Established connection").count - 1 >= 3 }, "\(proxy.stdout)")
    }

    @Test func basicAuthAndItsRefusals() async throws {
        let setup = try await Setup.make()
        defer { setup.gateway.kill() }
        let (proxy, port) = try await setup.proxy(["BasicAuth alice s3cret-pass"])
        defer { proxy.kill() }
        let arguments = ["verify", setup.identity, "--gateway", "127.0.0.1:\(setup.provider)", "--ca-file", setup.bundle, "--no-revocation", "--format", "json"]
        let anonymous = try await setup.apnskit(arguments + ["--proxy", "http://127.0.0.1:\(port)"])
        #expect(anonymous.status == 4, "\(anonymous.stdout)")
        #expect(anonymous.stderr.contains("(407 Proxy Authentication Required): it wants credentials: give them in the proxy URL"), "\(anonymous.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(anonymous.stdout.utf8)) as? [String: Any])
        #expect(report["proxyStatus"] as? Int == 407 && report["outcome"] as? String == "failed", "\(report)")
        let wrong = try await setup.apnskit(arguments + ["--proxy", "http://alice:not-it@127.0.0.1:\(port)"])
        #expect(wrong.status == 4 && wrong.stderr.contains("it did not accept the credentials in the proxy URL"), "\(wrong.stderr)")
        let right = try await setup.apnskit(arguments, environment: ["HTTPS_PROXY": "http://alice:s3cret-pass@127.0.0.1:\(port)"])
        #expect(right.status == 0, "\(right.stdout) \(right.stderr)")
        // The password is never printed, in any output.
        for result in [anonymous, wrong, right] {
            #expect(!(result.stdout + result.stderr).contains("s3cret-pass") && !(result.stdout + result.stderr).contains("not-it"))
        }
        #expect(right.stdout.contains("alice:***@127.0.0.1:\(port)"), "\(right.stdout)")
    }

    @Test func aProxyThatRefusesTheDestination() async throws {
        let setup = try await Setup.make()
        defer { setup.gateway.kill() }
        let (proxy, port) = try await setup.proxy(["ConnectPort 443"])
        defer { proxy.kill() }
        let push = try await setup.apnskit(["push", setup.identity, "--gateway", "127.0.0.1:\(setup.provider)", "--ca-file", setup.bundle,
                                            "--proxy", "http://127.0.0.1:\(port)", "--token", setup.token, "--alert", "no"])
        #expect(push.status == 4)
        #expect(push.stderr.contains("The proxy 127.0.0.1:\(port) refused to open a tunnel to 127.0.0.1:\(setup.provider) (403"), "\(push.stderr)")
        #expect(push.stderr.contains("its rules forbid that destination or port"), "\(push.stderr)")
    }

    @Test func theEnvironmentAsCurlReadsIt() async throws {
        let setup = try await Setup.make()
        defer { setup.gateway.kill() }
        let (proxy, port) = try await setup.proxy()
        defer { proxy.kill() }
        let arguments = ["verify", setup.identity, "--gateway", "127.0.0.1:\(setup.provider)", "--ca-file", setup.bundle, "--no-revocation"]
        let through = try await setup.apnskit(arguments, environment: ["https_proxy": "127.0.0.1:\(port)"])
        #expect(through.status == 0 && through.stdout.contains("  proxy "), "\(through.stdout)")
        let exempt = try await setup.apnskit(arguments, environment: ["HTTPS_PROXY": "http://127.0.0.1:\(port)", "NO_PROXY": "example.com,127.0.0.1"])
        #expect(exempt.status == 0 && !exempt.stdout.contains("  proxy "), "\(exempt.stdout)")
        let overridden = try await setup.apnskit(arguments + ["--proxy", ""], environment: ["HTTPS_PROXY": "http://127.0.0.1:\(port)"])
        #expect(overridden.status == 0 && !overridden.stdout.contains("  proxy "), "\(overridden.stdout)")
        let broken = try await setup.apnskit(arguments, environment: ["HTTPS_PROXY": "socks5://127.0.0.1:\(port)"])
        #expect(broken.status == 2 && broken.stderr.contains("only http:// proxies"), "\(broken.stderr)")
        let tls = try await setup.apnskit(arguments + ["--proxy", "https://127.0.0.1:\(port)"])
        #expect(tls.status == 2, "\(tls.stderr)")
    }

    /// Issue 31: a "proxy" that says 200 to CONNECT and then sends bytes of its own (the server
    /// behind has not spoken yet) was reported as "the server offers no TLS version we accept".
    @Test func garbageAfterAProxysYesIsSaidAsSuch() async throws {
        let setup = try await Setup.make()
        defer { setup.gateway.kill() }
        let portFile = setup.folder + "/garbage-proxy.port"
        let script = """
        import socket, time
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", 0)); s.listen(4)
        open("\(portFile).tmp", "w").write(str(s.getsockname()[1]))
        import os; os.rename("\(portFile).tmp", "\(portFile)")
        while True:
            c, _ = s.accept()
            data = b""
            while b"\\r\\n\\r\\n" not in data:
                chunk = c.recv(4096)
                if not chunk: break
                data += chunk
            c.sendall(b"HTTP/1.1 200 Connection established\\r\\n\\r\\n")
            time.sleep(0.3)  # not a wait: the proxy's yes and its garbage come as two writes
            c.sendall(b"<html>this proxy speaks for itself</html>\\r\\n")
            time.sleep(5)  # not a wait: the connection stays open past verify's reading
            c.close()
        """
        let proxy = try BackgroundProcess("/usr/bin/python3", ["-c", script])
        defer { proxy.kill() }
        #expect(await proxy.waitForFile(portFile), "\(proxy.stderr)")
        let port = try #require(Int(try String(contentsOfFile: portFile, encoding: .utf8)))
        let verify = try await setup.apnskit(["verify", setup.identity, "--gateway", "127.0.0.1:\(setup.provider)", "--ca-file", setup.bundle,
                                              "--no-revocation", "--timeout", "5", "--proxy", "http://127.0.0.1:\(port)"])
        #expect(verify.status == 4, "\(verify)")
        #expect((verify.stdout + verify.stderr).contains("what came back is not TLS"), "\(verify.stdout) \(verify.stderr)")
        #expect(!(verify.stdout + verify.stderr).contains("offers no TLS version"), "\(verify.stdout) \(verify.stderr)")
    }

    /// Before: the proxy's reason phrase reached the terminal raw (ESC, BEL).
    @Test func aProxysReasonPhraseIsEscaped() async throws {
        let setup = try await Setup.make()
        defer { setup.gateway.kill() }
        let script = """
            import socket
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
            print("port", s.getsockname()[1], flush=True)
            while True:
                c, _ = s.accept(); c.recv(4096)
                c.sendall(b"HTTP/1.1 403 Bad \\x1b[31mRed\\x07\\r\\n\\r\\n"); c.close()
            """
        let proxy = try BackgroundProcess("/usr/bin/python3", ["-c", script])
        defer { proxy.kill() }
        let line = try #require(await proxy.waitForStdoutLine(containing: "port "), "\(proxy.stderr)")
        let port = try #require(Int(line.split(separator: " ").last ?? ""))
        let push = try await setup.apnskit(["push", setup.identity, "--gateway", "127.0.0.1:\(setup.provider)", "--ca-file", setup.bundle,
                                            "--proxy", "http://127.0.0.1:\(port)", "--token", setup.token, "--alert", "no"])
        #expect(push.status == 4, "\(push)")
        #expect(push.stderr.contains("(403 Bad \\x1b[31mRed\\x07)") && !push.stderr.contains("\u{1B}") && !push.stderr.contains("\u{07}"), "\(push.stderr)")
    }

    @Test func aProxyThatNeverAnswersIsBoundedByTheTimeout() async throws {
        let setup = try await Setup.make()
        defer { setup.gateway.kill() }
        let silent = SilentListener()
        let verify = try await setup.apnskit(["verify", setup.identity, "--gateway", "127.0.0.1:\(setup.provider)", "--ca-file", setup.bundle,
                                              "--no-revocation", "--timeout", "2", "--proxy", "http://127.0.0.1:\(silent.port)"])
        #expect(verify.status == 4)
        #expect(verify.stderr.contains("The proxy 127.0.0.1:\(silent.port) did not open a tunnel to 127.0.0.1:\(setup.provider) within 2 seconds"), "\(verify.stderr)")
        withExtendedLifetime(silent) {}
    }
}
