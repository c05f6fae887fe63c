import APNsCredentials
import APNsProtocol
import APNsSender
import APNsTransport
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
let identity = try IdentityLoader.load([environment["APNS_IDENTITY"] ?? "apns.pem"], passphrases: .none)
let authentication = APNsClient.Authentication.certificate(identity)
let client: APNsClient
if let gateway = environment["APNS_GATEWAY"] {  // a mock gateway or a proxy
    client = APNsClient(endpoint: try Endpoint(parsing: gateway), caFile: environment["APNS_CA_FILE"],
                        authentication: authentication, connections: 2, logger: logger)
} else {
    client = APNsClient(environment: .sandbox, authentication: authentication, connections: 2, logger: logger)
}

var payload = Payload()
payload.title = "Hello"
payload.body = "From a long-running worker"
let body = payload.json()

await withTaskGroup(of: Void.self) { group in
    while let line = readLine() {
        guard let token = try? APNsDeviceToken(parsing: line) else {
            logger.warning("not a device token", metadata: ["line": "\(line)"])
            continue
        }
        group.addTask {
            let result = await client.send(APNsNotification(token: token, payload: body, topic: client.defaultTopic))
            switch result.outcome {
            case .delivered: print("delivered \(token.hex) \(result.apnsID)")
            case .rejected(let status, let reason, _): print("rejected \(token.hex) \(status) \(reason)")
            case .failed(let why): print("failed \(token.hex): \(why)")
            case .cancelled: print("cancelled \(token.hex)")
            }
        }
    }
}
await client.close()
metrics.printCounters()
