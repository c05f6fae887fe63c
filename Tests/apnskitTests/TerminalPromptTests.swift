// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// The passphrase prompt on a real terminal. The prompt lives in SecureIO and reaches the
/// OpenSSL layer's `PassphraseSupplier` only as the closure the CLI hands it (issue 23, item 5:
/// no terminal code under the transport), so these runs are what shows that every command
/// that asked before still asks. A pseudo-terminal from python's `pty` module is the
/// controlling terminal and stdin of the child, as an interactive shell's would be.
@Suite("CLI: passphrase prompts on a terminal")
struct TerminalPromptTests {
    /// Runs a command on a new pseudo-terminal: waits for each expected prompt and for echo to
    /// be off (the terminal's own state, read through the master side), types its answer, then
    /// prints everything the terminal showed and exits with the command's status (70 when a
    /// prompt never came: the command ended first, or 120 s passed).
    static let driver = #"""
        import json, os, pty, select, sys, termios, time
        pairs, argv = json.loads(sys.argv[1]), sys.argv[2:]
        pid, master = pty.fork()
        if pid == 0:
            os.execv(argv[0], argv)
        shown, deadline = b"", time.monotonic() + 120
        def read_some():
            global shown
            ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
            if not ready: return False
            try: chunk = os.read(master, 4096)
            except OSError: return False
            shown += chunk
            return bool(chunk)
        for prompt, answer in pairs:
            while prompt.encode() not in shown:
                if not read_some():
                    sys.stdout.write(shown.decode(errors="replace") + "\n[no prompt: " + prompt + "]\n")
                    sys.exit(70)
            shown = shown.replace(prompt.encode(), b"<" + prompt.encode() + b">", 1)
            # Type only once echo is off: turning it off (TCSAFLUSH) drops what was typed before.
            while termios.tcgetattr(master)[3] & termios.ECHO:
                if time.monotonic() > deadline: sys.exit(70)
                time.sleep(0.01)
            os.write(master, answer.encode() + b"\n")
        while read_some(): pass
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(shown.decode(errors="replace"))
        sys.exit(os.waitstatus_to_exitcode(status))
        """#

    func onTerminal(_ dir: TemporaryDirectory, answering pairs: [(prompt: String, answer: String)], _ arguments: [String]) async throws -> ProcessResult {
        let script = try dir.write("pty-driver.py", text: Self.driver)
        let json = String(decoding: try JSONSerialization.data(withJSONObject: pairs.map { [$0.prompt, $0.answer] }), as: UTF8.self)
        return try await ProcessRunner.run(Binaries.tool("python3"), [script, json, Binaries.apnskit] + arguments, directory: dir.path)
    }

    /// `keygen --encrypt` on a terminal, typing `first` at the new-passphrase prompt and `second` at its repeat.
    func keygen(in dir: TemporaryDirectory, typing first: String, then second: String) async throws -> ProcessResult {
        try await onTerminal(dir, answering: [("New passphrase for", first), ("Repeat the passphrase", second)],
                             ["keygen", "--type", "ec256", "--encrypt", "-o", "typed.key"])
    }

    @Test("keygen --encrypt asks for a new passphrase twice; openssl opens the key with it; inspect asks for it to read the key")
    func keygenAndInspectAskOnTheTerminal() async throws {
        let dir = try TemporaryDirectory("apnskit-prompt")
        let made = try await keygen(in: dir, typing: "s3cret-typed", then: "s3cret-typed")
        #expect(made.status == 0, "\(made)")
        #expect(made.stdout.contains("<New passphrase for") && made.stdout.contains("<Repeat the passphrase"), "\(made)")
        // The key is encrypted with what was typed: the openssl CLI opens it with that passphrase only.
        let opened = try await ProcessRunner.run(Binaries.tool("openssl"), ["pkey", "-in", dir.file("typed.key"), "-passin", "pass:s3cret-typed", "-noout"])
        #expect(opened.status == 0, "\(opened)")
        let refused = try await ProcessRunner.run(Binaries.tool("openssl"), ["pkey", "-in", dir.file("typed.key"), "-passin", "pass:other", "-noout"])
        #expect(refused.status != 0, "\(refused)")

        let inspected = try await onTerminal(dir, answering: [("Passphrase for", "s3cret-typed")], ["inspect", "typed.key"])
        #expect(inspected.status == 0, "\(inspected)")
        #expect(inspected.stdout.contains("<Passphrase for"), "\(inspected)")
    }

    @Test("Two different passphrases typed for a new key: no key is written and exit 3 with the missing-passphrase sentence")
    func mismatchedNewPassphraseWritesNothing() async throws {
        let dir = try TemporaryDirectory("apnskit-prompt")
        let made = try await keygen(in: dir, typing: "first-one", then: "second-one")
        #expect(made.status == 3, "\(made)")
        #expect(made.stdout.contains("Passphrases do not match.") && made.stdout.contains("A passphrase is needed to encrypt"), "\(made)")
        #expect(!dir.exists("typed.key"))
    }
}
