import MeridianCore
import MeridianCommandLine
import MeridianFormats

// Two lives, one target table:
// - built by Scripts/fuzz with -sanitize=fuzzer,address -parse-as-library -D FUZZING, libFuzzer
//   owns main and calls LLVMFuzzerTestOneInput with the target named by $MERIDIAN_FUZZ_TARGET;
// - built normally, `meridian-fuzz TARGET FILE…` replays inputs (a finding's reproducer, the
//   seed corpus) through the same code, which is how findings become regression tests.
// Either way `meridian-fuzz --list-targets` prints the targets' names, one a line: Scripts/fuzz
// runs them all, so a format added to the registry is fuzzed without naming it there.

#if FUZZING
import CLibFuzzer

nonisolated(unsafe) private var target: (([UInt8]) -> Void)?

// SwiftPM links an executable's entry as `<module>_main`; libFuzzer's driver runs from there.
@_cdecl("meridian_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    if argc == 2, let first = argv[1], String(cString: first) == FuzzTargets.listOption {
        FuzzTargets.printNames()
        return 0
    }
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzOneInput(data!, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if target == nil {
        let name = getenv("MERIDIAN_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let chosen = FuzzTargets.all[name] else {
            Reporter.printError("meridian-fuzz: set MERIDIAN_FUZZ_TARGET to one of \(FuzzTargets.all.keys.sorted().joined(separator: ", "))")
            exit(64)
        }
        target = chosen
    }
    target!(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
#else
@main
struct Replay {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments == [FuzzTargets.listOption] {
            FuzzTargets.printNames()
            return
        }
        guard let name = arguments.first, let target = FuzzTargets.all[name], arguments.count > 1 else {
            Reporter.printError("usage: meridian-fuzz TARGET FILE…  (targets: \(FuzzTargets.all.keys.sorted().joined(separator: ", ")))")
            exit(64)
        }
        for path in arguments.dropFirst() {
            guard let bytes = try? BufferedInput.open(path).readAll(maximum: BufferedInput.maximumTokenSize) else {
                Reporter.printError("meridian-fuzz: cannot read \(path)")
                exit(66)
            }
            target(bytes)
        }
    }
}
#endif
