import ArgumentParser

/// The list of subcommands, in the order `--help` shows them.
enum CommandRegistry {
    static let all: [ParsableCommand.Type] = [
        Verify.self,
    ]
}
