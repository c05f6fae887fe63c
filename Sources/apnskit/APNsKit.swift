import ArgumentParser

/// The root command. Each subcommand lives in its own file and stays thin: parse, call a
/// library, print.
struct APNsKit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apnskit",
        abstract: "APNs provider credentials: make, convert, check, verify and send with them.",
        discussion: """
        Exit codes: 0 success; 1 a check found a problem (expired, wrong environment, key does \
        not match, credentials rejected); 2 usage error (bad flags, output exists without \
        --force, output folder not writable); 3 input unreadable, of the wrong kind, or \
        wrong/missing passphrase; 4 network/TLS failure.
        """,
        version: "0.1.0",
        subcommands: CommandRegistry.all
    )
}
