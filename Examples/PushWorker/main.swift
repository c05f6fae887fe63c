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

// A discarding group: a plain task group keeps every finished child until its result is
// read, and this loop never reads one (4.3 KB a notification, 1 GB after 226 s at 1,000 a second).
await withDiscardingTaskGroup { group in
    while let line = readLine() {
        guard let token = try? APNsDeviceToken(parsing: line) else {
            logger.warning("not a device token", metadata: ["line": "\(line)"])
            continue
        }
        // Topic: the certificate's bundle id. A payload made per token (its own text, badge or
        // custom keys) uses `APNsNotification(token:payload:)`, which encodes and checks it.
        let notification = APNsNotification(token: token, payload: body, pushType: .alert)
        group.addTask {
            let result = await client.send(notification)
            switch result.outcome {
            case .delivered: print("delivered \(token.hex) \(result.apnsIDText)")
            case .rejected(let status, let reason, _): print("rejected \(token.hex) \(status) \(reason)")
            case .failed(let error): print("failed \(token.hex): \(error)")
            case .cancelled(let written): print("cancelled \(token.hex)\(written ? " (may be delivered)" : " (not sent)")")
            }
        }
    }
}
await client.close()
metrics.printCounters()
