// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// `scripts/install.sh PREFIX` into a temporary prefix, then what a user does next: run
/// `apnskit --help` from the prefix, read the man page with `man -l`, and load the bash
/// completion in a bash subshell and ask it to complete. The script reuses the already built
/// binary (APNSKIT_BINARY) so the test does not pay for a release build.
@Suite struct InstallScriptTests {
    static let packageRoot = Binaries.packageRoot

    @Test func installIntoATemporaryPrefix() async throws {
        let prefix = try TemporaryDirectory("apnskit-prefix")
        let install = try await ProcessRunner.run("bash", [Self.packageRoot + "/scripts/install.sh", prefix.path],
                                            environment: ["APNSKIT_BINARY": Binaries.apnskit], directory: Self.packageRoot)
        #expect(install.status == 0, "\(install)")
        let expected = ["bin/apnskit", "share/man/man1/apnskit.1", "share/bash-completion/completions/apnskit",
                        "share/zsh/site-functions/_apnskit", "share/fish/vendor_completions.d/apnskit.fish"]
        for file in expected {
            #expect(FileManager.default.fileExists(atPath: prefix.file(file)), "\(file) was not installed")
        }
        #expect(try prefix.mode("bin/apnskit") == 0o755)

        let help = try await ProcessRunner.run(prefix.file("bin/apnskit"), ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: apnskit <subcommand>") && help.stdout.contains("check"), "\(help)")

        // man-db renders the page (groff underneath); warnings would show on stderr.
        let man = try await ProcessRunner.run("man", ["-l", "-P", "cat", prefix.file("share/man/man1/apnskit.1")],
                                        environment: ["MANWIDTH": "100", "LANG": "C.UTF-8"])
        #expect(man.status == 0, "man -l failed (is man-db installed? scripts/setup.sh installs it): \(man)")
        #expect(man.stdout.contains("APNSKIT(1)") && man.stdout.contains("--min-remaining"), "\(man.stdout.prefix(400))")
        #expect(man.stderr.isEmpty, "\(man.stderr)")

        // The bash completion, sourced in a subshell the way bash-completion loads it, then
        // asked what follows `apnskit ch` and `apnskit check --for`.
        let completion = prefix.file("share/bash-completion/completions/apnskit")
        let script = """
        source "\(completion)" || exit 9
        complete -p apnskit || exit 8
        ask() { COMP_LINE="$*"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_POINT=${#COMP_LINE}; COMPREPLY=()
                _apnskit apnskit "${@: -1}" "${@: -2:1}"; printf '%s\\n' "${COMPREPLY[@]}"; echo --; }
        ask apnskit ch
        ask apnskit check --for
        """
        let bash = try await ProcessRunner.run("bash", ["--norc", "--noprofile", "-c", script],
                                         environment: ["PATH": prefix.file("bin") + ":/usr/bin:/bin"])
        #expect(bash.status == 0, "\(bash)")
        let answers = bash.stdout.components(separatedBy: "--\n")
        #expect(answers.count == 3, "\(bash)")
        #expect(answers.first?.split(separator: "\n").contains("check") == true, "\(bash)")
        #expect(answers.dropFirst().first?.split(separator: "\n").contains("--format") == true, "\(bash)")

        let relative = try await ProcessRunner.run("bash", [Self.packageRoot + "/scripts/install.sh", "relative/prefix"],
                                             environment: ["APNSKIT_BINARY": Binaries.apnskit], directory: Self.packageRoot)
        #expect(relative.status == 2)
        #expect(relative.stderr.contains("PREFIX must be an absolute path"))
    }
}
