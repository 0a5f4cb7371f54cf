import ArgumentParser
import MeridianCore
import MeridianFormats
import MeridianGeometry
import Testing
@testable import MeridianCommandLine

@Suite struct ChildProcessTests {
    @Test func pipesAndExitCode() throws {
        let child = try ChildProcess(path: "/bin/sh", arguments: ["-c", "echo out; echo err >&2; exit 3"], standardOutput: .pipe, standardError: .pipe)
        #expect(String(decoding: everything(from: child.standardOutput!), as: UTF8.self) == "out\n")
        #expect(String(decoding: everything(from: child.standardError!), as: UTF8.self) == "err\n")
        #expect(child.wait() == .exit(3) && child.hasEnded)
    }

    @Test func aStoppedChildEndsBySignal() throws {
        let child = try ChildProcess(path: "/bin/sh", arguments: ["-c", "exec sleep 30"])
        #expect(!child.hasEnded)
        child.terminate()
        #expect(child.wait() == .signal(15))
    }

    @Test func aProgramThatCannotRunIsAnError() {
        #expect(throws: MeridianError.self) { try ChildProcess(path: "/nonexistent/meridian-draw", arguments: []) }
    }

    /// A helper's warnings go to the handler and its error comes back with its exit code's kind.
    @Test func helperDiagnosticsComeBackAsMeridiansOwn() throws {
        let warning = Diagnostic(.warning, "a field was renamed").jsonLine, error = Diagnostic(.error, "cannot open it", hint: "check it").jsonLine
        let script = "printf '%s\\n' '\(warning)' '\(error)' >&2; exit 65"
        let child = try ChildProcess(path: "/bin/sh", arguments: ["-c", script], standardError: .pipe)
        nonisolated(unsafe) var warnings: [String] = []
        #expect(throws: MeridianError(.badInput, "cannot open it", hint: "check it")) {
            try HelperDiagnostics(of: child, helper: "meridian-test").finish(warnings: { warnings.append($0.message) })
        }
        #expect(warnings == ["a field was renamed"])
    }
}

@Suite struct PictureHelperOptionsTests {
    /// What `meridian` passes `meridian-draw` reads back as the very same options, negative
    /// numbers and all.
    @Test(arguments: [
        PictureOptions(),
        PictureOptions(width: 480, height: 320, scale: 3, heading: -75.25,
                       view: MapRect(x: 0.1 + 0.2, y: 1.0 / 3.0, width: 12_345.678_9, height: 1e-7), basemap: "-tiles/chart dir"),
    ])
    func optionsTravelExactly(_ options: PictureOptions) throws {
        let parsed = try PictureHelperOptions.parse(PictureHelperOptions.arguments(for: options)).options
        #expect(parsed.width == options.width && parsed.height == options.height && parsed.scale == options.scale)
        #expect(parsed.heading == options.heading && parsed.view == options.view && parsed.basemap == options.basemap)
    }
}
