import Foundation
import Metrics

/// A minimal swift-metrics backend for the example: counters kept in memory and printed at the
/// end, one `label{dimensions} value` line each. A server would bootstrap swift-prometheus
/// (or another backend) instead.
final class PrintingMetrics: MetricsFactory, @unchecked Sendable {
    private let lock = NSLock()
    private var counters: [String: CountingHandler] = [:]

    final class CountingHandler: CounterHandler, @unchecked Sendable {
        private let lock = NSLock()
        private var count: Int64 = 0
        var value: Int64 { lock.withLock { count } }
        func increment(by amount: Int64) { lock.withLock { count += amount } }
        func reset() { lock.withLock { count = 0 } }
    }

    final class IgnoringHandler: RecorderHandler, TimerHandler, @unchecked Sendable {
        func record(_ value: Int64) {}
        func record(_ value: Double) {}
        func recordNanoseconds(_ duration: Int64) {}
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> CounterHandler {
        let name = label + "{" + dimensions.map { "\($0.0)=\($0.1)" }.joined(separator: ",") + "}"
        return lock.withLock {
            if let existing = counters[name] { return existing }
            let made = CountingHandler()
            counters[name] = made
            return made
        }
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> RecorderHandler { IgnoringHandler() }
    func makeTimer(label: String, dimensions: [(String, String)]) -> TimerHandler { IgnoringHandler() }
    func destroyCounter(_ handler: CounterHandler) {}
    func destroyRecorder(_ handler: RecorderHandler) {}
    func destroyTimer(_ handler: TimerHandler) {}

    /// Every counter, sorted by name.
    func printCounters() {
        for (name, handler) in lock.withLock({ counters }).sorted(by: { $0.key < $1.key }) {
            print("\(name) \(handler.value)")
        }
    }
}
