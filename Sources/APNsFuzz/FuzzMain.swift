import APNsFuzzHarness
import Foundation

/// libFuzzer's driver, from the runtime `-sanitize=fuzzer` links in. Calling it from our own
/// `main` (instead of letting libFuzzer supply `main`) works with SwiftPM's renamed entry
/// points and lets us handle `APNS_FUZZ_SEED_DIR` before fuzzing starts.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// The harness this process runs, named by `APNS_FUZZ_TARGET` (one of `FuzzTarget`'s cases).
let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["APNS_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("APNsFuzz: set APNS_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    return target
}()

/// One input: a harness violation is a crash, so libFuzzer saves the input as an artifact.
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try selectedTarget.run(input)
    } catch {
        fatalError("\(selectedTarget.rawValue): \(error)")
    }
    return 0
}

@main
struct FuzzMain {
    static func main() throws {
        let target = selectedTarget
        // `APNS_FUZZ_SEED_DIR=DIR`: write the target's seed corpus there and stop.
        if let folder = ProcessInfo.processInfo.environment["APNS_FUZZ_SEED_DIR"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (index, seed) in try target.seeds().enumerated() {
                try Data(seed).write(to: URL(fileURLWithPath: "\(folder)/seed-\(index)"))
            }
            return
        }
        // Build the fixtures before fuzzing so their one-time allocations are not timed.
        _ = try target.seeds()
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv, { testOneInput($0, $1) })
        exit(status)
    }
}
