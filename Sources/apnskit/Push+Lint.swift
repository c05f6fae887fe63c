// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsProtocol
import APNsSender
import ArgumentParser

extension Push {
    /// The payload lint before anything is sent (docs/lint.md): an error refuses the run with
    /// exit 2 and the rule's sentence, warnings go to stderr and the run goes on. The lint sees
    /// the headers as they will be sent; a missing `apns-priority` is what APNs makes of it, 10.
    /// `--no-lint` skips it. Lines of `--tokens` with a payload of their own go through
    /// `lintProblem` instead.
    func lintBeforeSending(_ template: APNsNotification) throws {
        if noLint { return }
        let report = lint(template)
        for warning in report.warnings {
            Output.warning("\(warning.path): \(warning.message) [\(warning.rule.id)]")
        }
        guard let first = report.errors.first else { return }
        let more = report.errors.count - 1
        throw CommandFailure(
            message: "Not sent: lint rule \(first.rule.id) (\(first.path)): \(first.message)\(more > 0 ? " (\(more) more error\(more == 1 ? "" : "s"): apnskit lint lists them.)" : "") --no-lint sends it anyway.",
            status: ExitStatus.usage)
    }

    /// For a `--tokens` line with its own payload: the first lint error, as the clause of the
    /// line's "Not sent: ..." result (the line is invalid, the batch goes on); nil when the
    /// payload has none, or with `--no-lint`. Warnings are not printed per line.
    func lintProblem(_ notification: APNsNotification) -> String? {
        if noLint { return nil }
        guard let first = lint(notification).errors.first else { return nil }
        let message = first.message.hasSuffix(".") ? String(first.message.dropLast()) : first.message
        return "lint rule \(first.rule.id) (\(first.path)): \(message)"
    }

    /// The notification as it will be sent: its headers, a missing priority read as APNs reads
    /// it (10); a broadcast's topic is not checked (channels have none).
    private func lint(_ notification: APNsNotification) -> APNsLintReport {
        APNsPayloadLint.lint(APNsLintRequest(
            payload: notification.payload, pushType: notification.pushType, topic: newer.isBroadcast ? nil : notification.topic,
            priority: notification.priority?.rawValue ?? APNsPriority.immediate.rawValue, collapseID: notification.collapseID))
    }
}
