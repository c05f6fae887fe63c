// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
import APNsFuzzHarness
import Foundation

// The libFuzzer entry points. They need libFuzzer's runtime (linked by -sanitize=fuzzer), which
// is why this target is declared only for scripts/fuzz.sh (APNSKIT_FUZZ=1 in Package.swift).

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

/// Runs once before fuzzing. `APNS_FUZZ_SEED_DIR=DIR` writes the target's seed corpus (valid
/// fixtures) there and exits; otherwise the fixtures are built now, so their one-time
/// allocations are neither timed nor reported as leaks of the first input.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    let target = selectedTarget
    do {
        let seeds = try target.seeds()
        if let folder = ProcessInfo.processInfo.environment["APNS_FUZZ_SEED_DIR"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (index, seed) in seeds.enumerated() {
                try Data(seed).write(to: URL(fileURLWithPath: "\(folder)/seed-\(index)"))
            }
            exit(0)
        }
    } catch {
        FileHandle.standardError.write(Data("APNsFuzz: cannot build the \(target.rawValue) fixtures: \(error)\n".utf8))
        exit(1)
    }
    return 0
}

/// One input: a harness violation is a crash, so libFuzzer saves the input as an artifact.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try selectedTarget.run(input)
    } catch {
        fatalError("\(selectedTarget.rawValue): \(error)")
    }
    return 0
}

/// SwiftPM links executables with `--defsym main=APNsFuzz_main`; this hands control straight
/// to libFuzzer's own driver, with the same entry points libFuzzer's `main` would use.
@_cdecl("APNsFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { fuzzerTestOneInput($0, $1) }
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt
