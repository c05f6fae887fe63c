import APNsProtocol
import APNsSender
import ArgumentParser

extension Push {
    /// The payload lint before anything is sent (docs/lint.md): an error refuses the run with
    /// exit 2 and the rule's sentence, warnings go to stderr and the run goes on. The lint sees
    /// the headers as they will be sent; a missing `apns-priority` is what APNs makes of it, 10.
    /// `--no-lint` skips it. Per-line payloads of `--tokens` are not linted (only the shared one).
    func lintBeforeSending(_ template: APNsNotification) throws {
        if noLint { return }
        let report = APNsPayloadLint.lint(APNsLintRequest(
            payload: template.payload, pushType: template.pushType, topic: newer.isBroadcast ? nil : template.topic,
            priority: template.priority?.rawValue ?? APNsPriority.immediate.rawValue, collapseID: template.collapseID))
        for warning in report.warnings {
            Output.warning("\(warning.path): \(warning.message) [\(warning.rule.id)]")
        }
        guard let first = report.errors.first else { return }
        let more = report.errors.count - 1
        throw CommandFailure(
            message: "Not sent: lint rule \(first.rule.id) (\(first.path)): \(first.message)\(more > 0 ? " (\(more) more error\(more == 1 ? "" : "s"): apnskit lint lists them.)" : "") --no-lint sends it anyway.",
            status: ExitStatus.usage)
    }
}
