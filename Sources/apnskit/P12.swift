import ArgumentParser

/// `apnskit p12 split|create`.
struct P12: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "p12",
        abstract: "Split a .p12 into PEM files, or create one.",
        subcommands: [P12Split.self, P12Create.self]
    )
}
