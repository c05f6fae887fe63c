import APNs
import Foundation
import Logging
import Metrics

// A worker that runs for as long as its process: one APNsClient, shared by every task, sends
// each device token read from stdin (one per line) as it arrives. Logs go through swift-log,
// counters and timers through swift-metrics: bootstrap your own backends (a JSON log handler,
// swift-prometheus) where this bootstraps the standard-error log handler and PrintingMetrics.
LoggingSystem.bootstrap(StreamLogHandler.standardError)
let metrics = PrintingMetrics()
MetricsSystem.bootstrap(metrics)
var logger = Logger(label: "push-worker")
logger.logLevel = .debug

let environment = ProcessInfo.processInfo.environment
let identity = try APNsIdentity.load(contentsOf: [environment["APNS_IDENTITY"] ?? "apns.pem"])
var configuration = APNsClient.Configuration(gateway: .sandbox, authentication: .certificate(identity))
if let gateway = environment["APNS_GATEWAY"], let colon = gateway.lastIndex(of: ":"), let port = Int(gateway[gateway.index(after: colon)...]) {
    // A mock gateway (or a relay) standing in for the sandbox, trusted through its own CA.
    configuration.gateway = .custom(host: String(gateway[..<colon]), port: port, environment: .sandbox)
    if let caFile = environment["APNS_CA_FILE"] { configuration.trust = .caFile(caFile) }
}
configuration.pool.connections = 2
let client = try APNsClient(configuration: configuration, logger: logger)

// The notification's body, typed: no hand-written JSON (APNsAlertPayload has the whole aps
// dictionary; APNsBackgroundPayload, APNsLiveActivityPayload, ... the other push types).
var alert = APNsAlertPayload(alert: APNsAlert(title: "Hello", body: "From a long-running worker"))
alert.sound = .default
alert.threadID = "worker"
// Every token gets the same alert: encode it once and let each notification share the bytes.
// (JSONEncoder costs more than the whole send when it runs per notification: docs/benchmarks.md.)
let body = try alert.encoded()

// At most this many sends at once. The client writes `connections` x `concurrency` (here 200) at
// a time and queues the rest; without a bound, a fast input (a file of a million tokens) would
// become a million waiting tasks, some 3 KB each. When the bound is reached, the loop reads one
// finished child before it starts the next: a plain task group keeps each finished child until
// it is read, so this also keeps the finished ones to at most the bound.
let maxSendsInFlight = 1_000
await withTaskGroup(of: Void.self) { group in
    var inFlight = 0
    while let line = readLine() {
        guard let token = try? APNsDeviceToken(parsing: line) else {
            logger.warning("not a device token", metadata: ["line": "\(line)"])
            continue
        }
        // Topic: the certificate's bundle id. A payload made per token (its own text, badge or
        // custom keys) uses `APNsNotification(token:payload:)`, which encodes and checks it.
        let notification = APNsNotification(token: token, payload: body, pushType: .alert)
        if inFlight == maxSendsInFlight {
            _ = await group.next()
            inFlight -= 1
        }
        group.addTask {
            let result = await client.send(notification)
            switch result.outcome {
            case .delivered: print("delivered \(token.hex) \(result.apnsIDText)")
            case .rejected(let status, let reason, _): print("rejected \(token.hex) \(status) \(reason)")
            case .failed(let error): print("failed \(token.hex): \(error)")
            case .cancelled(let written): print("cancelled \(token.hex)\(written ? " (may be delivered)" : " (not sent)")")
            }
        }
        inFlight += 1
    }
}
await client.close()
metrics.printCounters()
