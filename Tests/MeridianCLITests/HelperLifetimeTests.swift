#if os(Linux)
import Foundation
import Testing

/// A helper (`meridian-gdal`, `meridian-draw`) never outlives the `meridian` that started it:
/// killed outright (SIGKILL), the parent takes the helper with it (the kernel's parent-death
/// signal, and the helper's own watch on its parent); interrupted (SIGINT, SIGTERM), the parent
/// ends and reaps its helpers before it exits.
@Suite struct HelperLifetimeTests {
    /// The processes whose parent is `parent` (from /proc, so no tool is needed).
    static func children(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            // After "pid (name)": state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == parent
        }
    }

    /// Whether `pid` has ended: no longer there, or a zombie waiting for whoever adopted it.
    static func hasEnded(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
    }

    /// `meridian convert` of a Shapefile of 20,000 points to standard output, a pipe nobody
    /// reads: the parent waits to write, its `meridian-gdal ogr-read` helper waits to hand it more
    /// features. The parent is then signalled; the helper must be gone within 5 seconds. (A FIFO
    /// as the Shapefile's .dbf held the helper until such companions were refused, 65, before
    /// GDAL opens them.) One Shapefile serves the three signals, tried one after another: made
    /// once per signal, in parallel, the debug build's conversions took past the time limit under
    /// the full suite's load.
    @Test(.timeLimit(.minutes(10)))
    func helperEndsWithItsParent() throws {
        try withTemporaryFolder { folder in
            let points = folder.appendingPathComponent("points.geojsonl").path, shapefile = folder.appendingPathComponent("points.shp").path
            let lines = (0..<20_000).map { i in
                #"{"type":"Feature","properties":{"i":\#(i)},"geometry":{"type":"Point","coordinates":[\#(Double(i % 3600) / 10 - 180),\#(Double(i / 3600) / 10)]}}"#
            }
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: points))
            let written = try meridian(["convert", points, "-o", shapefile])
            try #require(written.status == 0, "\(written.stderr)")
            for signal in [SIGKILL, SIGTERM, SIGINT] { try Self.signalParent(converting: shapefile, with: signal) }
        }
    }

    static func signalParent(converting shapefile: String, with signal: Int32) throws {
        // Standard output: a pipe this test holds open and never reads. Close-on-exec, so no
        // other test's child inherits it; the spawned meridian gets it as its standard output.
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // Spawned and reaped here, not by Foundation's Process, whose wait also waits for a
        // descriptor the helper inherits, so it would hang (not fail) on a helper left running.
        let arguments = [meridianBinary, "convert", shapefile]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO)
        // No other descriptor of this test process (other tests' pipes, Foundation's
        // process-watching sockets) reaches the child, which would keep those waiting.
        // (glibc's closefrom action is not visible to Swift; a descriptor closed meanwhile is
        // no error for glibc's close action.)
        let open = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
        for descriptor in open where descriptor > STDERR_FILENO && descriptor != ends[1] {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        var parent = pid_t()
        let spawned = posix_spawn(&parent, meridianBinary, &actions, nil, argv, environ)
        close(ends[1])
        try #require(spawned == 0)
        var helpers: [pid_t] = []
        let started = Date()
        while helpers.isEmpty && Date().timeIntervalSince(started) < 30 {
            usleep(20_000)
            helpers = Self.children(of: parent)
        }
        defer { for helper in helpers where !Self.hasEnded(helper) { kill(helper, SIGKILL) } }
        guard !helpers.isEmpty else {
            kill(parent, SIGKILL)
            Issue.record("no helper started")
            return
        }
        usleep(500_000)  // the helper is past its start-up, waiting to hand over features
        kill(parent, signal)
        var status: Int32 = 0
        let killed = Date()
        while waitpid(parent, &status, WNOHANG) == 0 {
            guard Date().timeIntervalSince(killed) < 10 else {
                kill(parent, SIGKILL)
                waitpid(parent, &status, 0)
                Issue.record("meridian did not end within 10 s of signal \(signal)")
                break
            }
            usleep(20_000)
        }
        while !helpers.allSatisfy(Self.hasEnded) && Date().timeIntervalSince(killed) < 5 { usleep(20_000) }
        #expect(helpers.allSatisfy(Self.hasEnded), "signal \(signal): helpers \(helpers) still running")
        // Ended by the signal's handler, which exits with 128 + the signal, or by SIGKILL itself.
        #expect(signal == SIGKILL ? status & 0x7F == SIGKILL : (status >> 8) & 0xFF == 128 + signal, "status \(status)")
    }
}
#endif
