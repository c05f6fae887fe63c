// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation

/// Entry point. ArgumentParser exits 64 on usage errors; apnskit's contract says 2, so parsing
/// errors are mapped here, and every library error becomes one sentence plus its exit code.
@main
enum Main {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst()).map(Self.alias)
        let command: ParsableCommand
        do {
            command = try APNsKit.parseAsRoot(arguments)
        } catch {
            exitForParseError(error)
        }
        do {
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
        } catch {
            Output.fail(error)
        }
        exit(0)
    }

    /// Spellings ArgumentParser cannot declare: a flag with an optional value.
    /// `--revocation=require` is `--revocation-required`, `--revocation=check` is `--revocation`.
    static func alias(_ argument: String) -> String {
        switch argument {
        case "--revocation=require", "--revocation=required": return "--revocation-required"
        case "--revocation=check": return "--revocation"
        default: return argument
        }
    }

    static func exitForParseError(_ error: Error) -> Never {
        let code = APNsKit.exitCode(for: error)
        let message = APNsKit.fullMessage(for: error)
        if code == .success {
            // --help and --version print to stdout and succeed.
            if !message.isEmpty { print(message) }
            exit(0)
        }
        // One "apnskit: ..." sentence like every other error, then the usage hint.
        let sentence = APNsKit.message(for: error)
        var text = "apnskit: \(sentence)\n"
        if let usage = message.range(of: "Usage:") { text += String(message[usage.lowerBound...]) + "\n" }
        FileHandle.standardError.write(Data(text.utf8))
        exit(code == .validationFailure ? ExitStatus.usage : code.rawValue)
    }
}
