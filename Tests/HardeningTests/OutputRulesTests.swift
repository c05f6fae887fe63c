// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

extension Hardening {
    /// Issue 12: file targets, exit codes and the terminal. Outputs are regular files only and
    /// never two on one path; a `--ca-file` without certificates is bad input before any
    /// connection; a results file that cannot be written does not hide a delivered batch; the
    /// mock CA's folders are private under any umask; Ctrl-C at the passphrase prompt leaves
    /// echo on; a payload from a pipe is read only up to its bound.
    @Suite("Hardening: outputs, exit codes, terminal")
    struct OutputRulesTests {
        static let token = String(repeating: "ab", count: 32)

        @Test("-o over a FIFO or a link to one is refused, even with --force, and the node stays")
        func nonRegularTargets() async throws {
            let w = try await CLIWorkspace.withPushCertificate()
            #expect(mkfifo(w.dir.file("fifo"), 0o600) == 0)
            #expect(symlink(w.dir.file("fifo"), w.dir.file("link")) == 0)
            for target in ["fifo", "link"] {
                let result = try await w.run(["keygen", "--type", "ec256", "-o", target, "--force"])
                #expect(result.status == 2, "\(result)")
                #expect(result.stderr.contains("\(target) is a FIFO; apnskit writes outputs only as regular files"), "\(result)")
                var info = stat()
                #expect(stat(w.dir.file(target), &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "\(target) was replaced")
            }
            let split = try await w.run(["csr", "--email", "a@b.c", "--common-name", "X", "--key-out", "fresh.key", "--csr-out", "fifo", "--force"])
            #expect(split.status == 2 && !FileManager.default.fileExists(atPath: w.dir.file("fresh.key")), "\(split)")
        }

        @Test("Two outputs on one path are refused up front and nothing is written")
        func sharedOutputPath() async throws {
            let w = try await CLIWorkspace.withPushCertificate()
            let csr = try await w.run(["csr", "--email", "a@b.c", "--common-name", "X", "--key-out", "same", "--csr-out", "./same", "--force"])
            #expect(csr.status == 2, "\(csr)")
            #expect(csr.stderr.contains("--key-out and --csr-out both name ./same; give each output its own path."), "\(csr)")
            #expect(!FileManager.default.fileExists(atPath: w.dir.file("same")))
            try await w.expectSuccess("p12", "create", "push.cer", "push.key", "--passout", "pass:x", "-o", "b.p12")
            let split = try await w.run(["p12", "split", "b.p12", "--passin", "pass:x", "--cert-out", "out.pem", "--key-out", "out.pem"])
            #expect(split.status == 2 && split.stderr.contains("--cert-out and --key-out both name out.pem"), "\(split)")
            #expect(!FileManager.default.fileExists(atPath: w.dir.file("out.pem")))
            try await w.expectSuccess("combine", "push.cer", "push.key", "-o", "apns.pem")
            let push = try await w.run(["push", "apns.pem", "--alert", "hi", "--token", Self.token,
                                  "--results", "r.jsonl", "--invalid-tokens", "r.jsonl", "--gateway", "127.0.0.1:1"])
            #expect(push.status == 2 && push.stderr.contains("--results and --invalid-tokens both name r.jsonl"), "\(push)")
        }

        @Test("A --ca-file without certificates is exit 3 before connecting, in verify, push and feedback")
        func caFileWithoutCertificates() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            _ = try w.dir.write("notes.txt", text: "not a certificate\n")
            for command in [["verify", "apns.pem"], ["push", "apns.pem", "--token", Self.token, "--alert", "hi"], ["feedback", "apns.pem"]] {
                for ca in ["notes.txt", "push.key"] {
                    // Port 1 on loopback: nothing listens; exit 4 would mean we tried.
                    let result = try await w.run(command + ["--gateway", "127.0.0.1:1", "--ca-file", ca])
                    #expect(result.status == 3, "\(command[0]) --ca-file \(ca): \(result)")
                    #expect(result.stderr.contains(ca), "\(result)")
                }
            }
        }

        @Test("--payload from /dev/zero is refused at 64 KiB with exit 3, not read to the end")
        func payloadFromEndlessPipe() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let (result, peak) = try await BoundsTests.measured(
                "/usr/bin/time -f maxrss=%M '\(Binaries.apnskit)' push apns.pem --gateway 127.0.0.1:1 --token \(Self.token) --payload - < /dev/zero",
                in: w.dir.path)
            #expect(result.status == 3, "\(result)")
            #expect(result.stderr.contains("Standard input is larger than 64 KiB; that is not an APNs payload"), "\(result)")
            #expect(peak > 0 && peak < 96 * 1024, "push peak RSS \(peak) KiB")
            let (file, _) = try await BoundsTests.measured("'\(Binaries.apnskit)' push apns.pem --gateway 127.0.0.1:1 --token \(Self.token) --payload /dev/zero",
                                                     in: w.dir.path)
            #expect(file.status == 3 && file.stderr.contains("/dev/zero is larger than 64 KiB"), "\(file)")
        }

        @Test("A results file that cannot be written (file size limit) after a delivered batch: summary printed, exit 0, no partial file")
        func resultsDiskFull() async throws {
            let w = try await CLIWorkspace.withPushCertificate(combined: true)
            let mock = try await MockServeProcess(in: w)
            defer { mock.kill() }
            let tokens = (0..<200).map { String(format: "%064x", $0 + 1) }.joined(separator: "\n") + "\n"
            _ = try w.dir.write("tokens.txt", text: tokens)
            // ulimit -f 4: 2 KB per file (dash counts 512-byte blocks); SIGXFSZ ignored, so
            // write() fails with EFBIG as on a full disk.
            let result = try await ProcessRunner.run("/bin/sh", ["-c", "trap '' XFSZ; ulimit -f 4; exec \"$0\" \"$@\"", Binaries.apnskit,
                                                           "push", "apns.pem", "--gateway", "127.0.0.1:\(mock.port)", "--ca-file", "ca/ca-bundle.pem",
                                                           "--tokens", "tokens.txt", "--alert", "hi", "--results", "results.jsonl"],
                                               directory: w.dir.path)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("200 delivered"), "\(result)")
            #expect(result.stderr.contains("the batch was sent (summary above); not written: Cannot write results.jsonl"), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: w.dir.file("results.jsonl")))
        }

        @Test("mock ca under umask 000 makes private folders, and the mock refuses a CA folder others can write")
        func mockFoldersPrivate() async throws {
            let w = try await CLIWorkspace.withPushCertificate()
            let ca = try await w.runWithUmask("000", ["mock", "ca", "-o", "open-ca"])
            #expect(ca.status == 0, "\(ca)")
            let key = try await w.runWithUmask("000", ["mock", "issue", "--auth-key", "--ca", "open-ca", "--team-id", "TEAM123456", "-o", "."])
            #expect(key.status == 0, "\(key)")
            for folder in ["open-ca", "open-ca/auth-keys"] {
                var info = stat()
                #expect(stat(w.dir.file(folder), &info) == 0 && info.st_mode & 0o777 == 0o700, "\(folder): mode \(String(info.st_mode & 0o777, radix: 8))")
            }
            #expect(chmod(w.dir.file("open-ca/auth-keys"), 0o777) == 0)
            let serve = try await w.run(["mock", "serve", "--ca", "open-ca", "--port", "0", "--no-legacy", "--no-feedback"])
            #expect(serve.status == 3, "\(serve)")
            #expect(serve.stderr.contains("open-ca/auth-keys can be written by other users (mode 777)"), "\(serve)")
        }

        @Test("Ctrl-C at the passphrase prompt leaves the terminal's echo on")
        func promptRestoresTerminal() async throws {
            let w = try await CLIWorkspace.withPushCertificate()
            try await w.expectSuccess("key", "encrypt", "push.key", "--passout", "pass:secret", "-o", "enc.key")
            let script = try w.dir.write("prompt_interrupt.py", text: Self.ptyScript)
            let result = try await ProcessRunner.run("python3", [script, Binaries.apnskit, "enc.key"], directory: w.dir.path)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("prompt=yes echo_during=off signal=2 echo_after=on"), "\(result)")
        }

        /// Runs `apnskit key strip KEY -o out.key` on a new pseudo-terminal, waits for the
        /// passphrase prompt, types Ctrl-C, and reports the terminal's ECHO flag during the
        /// prompt and after the process died (the slave is held open to read it).
        static let ptyScript = #"""
        import os, pty, select, signal, sys, termios, time
        binary, key = sys.argv[1], sys.argv[2]
        pid, master = pty.fork()
        if pid == 0:
            # As from a shell: the test runner's blocked signals must not reach the child.
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.execv(binary, [binary, "key", "strip", key, "-o", "out.key"])
        seen = b""
        deadline = time.time() + 30
        while b"assphrase" not in seen and time.time() < deadline:
            if not select.select([master], [], [], 1)[0]:
                continue
            chunk = os.read(master, 1024)
            if not chunk:
                break
            seen += chunk
        slave = os.open(os.readlink("/proc/%d/fd/0" % pid), os.O_RDWR | os.O_NOCTTY)
        while termios.tcgetattr(slave)[3] & termios.ECHO and time.time() < deadline:
            time.sleep(0.01)  # the prompt is written just before echo goes off
        during = termios.tcgetattr(slave)[3] & termios.ECHO
        os.write(master, b"\x03")
        _, status = os.waitpid(pid, 0)
        after = termios.tcgetattr(slave)[3] & termios.ECHO
        print("prompt=%s echo_during=%s signal=%d echo_after=%s" % ("yes" if b"assphrase" in seen else "no",
              "on" if during else "off", os.WTERMSIG(status) if os.WIFSIGNALED(status) else -1, "on" if after else "off"))
        """#
    }
}
