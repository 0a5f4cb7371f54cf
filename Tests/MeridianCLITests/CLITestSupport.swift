import Foundation
import Testing
// Fixtures and exit statuses, shared by every test target; re-exported for this target's files.
@_exported import MeridianTestSupport

/// The `meridian` binary that `swift test` built: $MERIDIAN_BINARY, else beside the test bundle,
/// else in .build/debug.
let meridianBinary: String = {
    if let path = ProcessInfo.processInfo.environment["MERIDIAN_BINARY"] { return path }
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("meridian").path
    if FileManager.default.isExecutableFile(atPath: beside) { return beside }
    return packageRoot.appendingPathComponent(".build/debug/meridian").path
}()

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutData: Data
}

/// Runs `meridian` with arguments (and optional standard input) as a user would. Standard
/// streams go through files, so no pipe can fill up and block the process.
@discardableResult
func meridian(_ arguments: [String], stdin: Data? = nil, in directory: URL? = nil) throws -> RunResult {
    try run(meridianBinary, arguments, stdin: stdin, in: directory)
}

/// Runs any program (a path, or a name looked up on PATH through env) the same way.
@discardableResult
func run(_ program: String, _ arguments: [String], stdin: Data? = nil, in directory: URL? = nil) throws -> RunResult {
    try withTemporaryFolder { streams in
        let inURL = streams.appendingPathComponent("stdin"), outURL = streams.appendingPathComponent("stdout"),
            errURL = streams.appendingPathComponent("stderr")
        try (stdin ?? Data()).write(to: inURL)
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        if program.contains("/") {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [program] + arguments
        }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = try FileHandle(forReadingFrom: inURL)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
        process.waitUntilExit()
        let out = try Data(contentsOf: outURL)
        return RunResult(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                         stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self), stdoutData: out)
    }
}

func contents(of folder: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
}

/// Runs `meridian` with its standard output on a pseudo-terminal, as when a person runs it
/// without redirecting: util-linux's `script` (Debian's essential bsdutils) gives the command a
/// terminal and copies what reaches it to `stdout`; the command's stderr goes to a file. The
/// same wrapping first checks that a command run so sees a terminal (`test -t 1`), so a test
/// built on it cannot pass without one.
func meridianOnTerminal(_ arguments: [String]) throws -> RunResult {
    func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    let probe = try run("script", ["-qec", "test -t 1", "/dev/null"])
    try #require(probe.status == 0, "script gives no terminal: \(probe.stderr)")
    return try withTemporaryFolder { folder in
        let errors = folder.appendingPathComponent("stderr").path
        let command = ([meridianBinary] + arguments).map(quoted).joined(separator: " ") + " 2>" + quoted(errors)
        let terminal = try run("script", ["-qec", command, "/dev/null"])
        let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        return RunResult(status: terminal.status, stdout: terminal.stdout, stderr: stderr, stdoutData: terminal.stdoutData)
    }
}

/// A PMTiles archive read by PyPI's pmtiles (an independent reader, in `.build/python-checks`)
/// against a folder of the same pyramid's `z/x/y.ext` files. The report: `files` (or `tiles`) in the folder,
/// tiles `stored` in the archive, how many are the `same` bytes as their file and how many
/// `differ` (archive tiles with no file count too), and from the archive's header and metadata
/// the `type`, `format`, `contents`, `entries`, `addressed` counts and the `layers`' ids. Vector
/// tiles (gzipped in the archive, plain in a folder) are compared gunzipped.
func pmtilesAgainstFolder(_ archive: String, _ folder: String, extension ext: String) throws -> [String: Any] {
    let python = packageRoot.appendingPathComponent(".build/python-checks/bin/python").path
    let script = """
        import glob, gzip, json, os, sys
        from pmtiles.reader import Reader, MmapSource, all_tiles
        with open(sys.argv[1], 'rb') as f:
            reader = Reader(MmapSource(f)); header = reader.header(); metadata = reader.metadata()
            stored = dict(all_tiles(MmapSource(f)))
        files = glob.glob(os.path.join(sys.argv[2], '*', '*', '*.' + sys.argv[3]))
        same = 0
        for path in files:
            z, x, y = (int(part) for part in os.path.relpath(path, sys.argv[2])[:-len(sys.argv[3]) - 1].split('/'))
            data = stored.get((z, x, y))
            if data is not None and sys.argv[3] == 'pbf': data = gzip.decompress(data)
            same += data == open(path, 'rb').read()
        print(json.dumps({'files': len(files), 'tiles': len(files), 'stored': len(stored), 'same': same, 'differ': len(stored) - same,
                          'type': int(header['tile_type'].value), 'format': metadata.get('format'),
                          'contents': header['tile_contents_count'], 'entries': header['tile_entries_count'],
                          'addressed': header['addressed_tiles_count'], 'layers': [l['id'] for l in metadata.get('vector_layers', [])]}))
        """
    let result = try run(python, ["-c", script, archive, folder, ext])
    #expect(result.status == 0, "\(result.stderr)")
    return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
}
