// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import OpenSSLCore

/// Entry point. ArgumentParser exits 64 on usage errors; apnskit's contract says 2, so parsing
/// errors are mapped here, and every library error becomes one sentence plus its exit code.
@main
enum Main {
    static func main() async {
        let arguments = Self.mergingRepeated("--unregister", in: Array(CommandLine.arguments.dropFirst()).map(Self.alias))
        if let (name, parent) = unknownSubcommand(arguments) {
            FileHandle.standardError.write(Data("apnskit: '\(ControlCharacters.hexEscaped(name))' is not a subcommand of \(parent); see \(parent) --help.\n".utf8))
            exit(ExitStatus.usage)
        }
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

    /// Every `--unregister V` (and `--unregister=V`) of a `mock` command as one
    /// `--unregister V1,V2,...` where the first stood. ArgumentParser copies an array option's
    /// values at each repeat, so 10,000 repeats (the documented bound) took about five
    /// minutes; `RuntimeFaultOptions` splits the list again. Other words stay as they are.
    static func mergingRepeated(_ option: String, in arguments: [String]) -> [String] {
        guard arguments.first == "mock" else { return arguments }
        var values: [String] = []
        var merged: [String] = []
        var firstAt: Int?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { merged += arguments[index...]; break }
            if argument == option, index + 1 < arguments.count {
                firstAt = firstAt ?? merged.count
                values.append(arguments[index + 1])
                index += 2
                continue
            }
            if argument.hasPrefix(option + "=") {
                firstAt = firstAt ?? merged.count
                values.append(String(argument.dropFirst(option.count + 1)))
                index += 1
                continue
            }
            merged.append(argument)
            index += 1
        }
        guard let firstAt else { return arguments }
        merged.insert(contentsOf: [option, values.joined(separator: ",")], at: firstAt)
        return merged
    }

    /// The unknown subcommand of `apnskit nosuchcommand --help` (or `apnskit mock nosuch -h`),
    /// with the command it was given to. ArgumentParser prints the parent's help for it and
    /// exits 0, which tells a script the command exists; without --help the parser already
    /// refuses the word. Nil when every leading word names a subcommand, or a command takes
    /// words of its own (no subcommands, or a default one).
    static func unknownSubcommand(_ arguments: [String]) -> (name: String, parent: String)? {
        guard arguments.contains(where: { $0 == "--help" || $0 == "-h" }) else { return nil }
        var command: ParsableCommand.Type = APNsKit.self
        var path = "apnskit"
        for argument in arguments {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, command.configuration.defaultSubcommand == nil, !argument.hasPrefix("-") else { return nil }
            if path == "apnskit" && argument == "help" { return nil }
            guard let next = subcommands.first(where: { $0._commandName == argument }) else { return (argument, path) }
            command = next
            path += " " + argument
        }
        return nil
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
