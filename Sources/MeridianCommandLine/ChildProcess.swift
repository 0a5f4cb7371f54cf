import MeridianCore
import MeridianFormats
#if canImport(Glibc)
import CProcessControl
#endif

/// A child process started with posix_spawn, its standard output and error each inherited or on
/// a pipe this process reads. (Not Foundation's Process: `meridian` links no Foundation, which
/// would add about a third to its start-up.)
///
/// Not swift-subprocess either (1.0.2 was weighed for it): its `run` is async only, where the
/// executables and this type are synchronous; on a Linux kernel without `waitid(P_PIDFD)` it
/// installs a SIGCHLD handler for the whole process, the process-global state that threads
/// here must never touch; and its default trait links Foundation. Signal masks and pipes are
/// posix_spawn's attributes and file actions, the same on Darwin; the children are stopped by
/// `RunningChildren` (SIGTERM, then SIGKILL) and stop themselves when this process dies.
public final class ChildProcess {
    /// Where one of the child's output streams goes.
    public enum Stream {
        /// This process's own.
        case inherited
        /// A pipe whose reading end this process holds (`standardOutput`, `standardError`).
        case pipe
    }

    /// How the child ended.
    public enum Termination: Equatable, Sendable {
        case exit(Int32)
        case signal(Int32)

        /// "exit 3", "signal 9": for messages.
        public var description: String {
            switch self {
            case .exit(let code): "exit \(code)"
            case .signal(let signal): "signal \(signal)"
            }
        }
    }

    let pid: pid_t
    /// The arguments after the program's name.
    public let arguments: [String]
    /// The reading ends of the pipes asked for (nil for an inherited stream); closed with the child.
    public let standardOutput: Int32?
    /// The reading end of the child's standard error when it was asked for as a pipe; nil when inherited. Closed with the child.
    public let standardError: Int32?
    private var ended: Termination?

    /// Starts `path` with `arguments` (argv[0] is the path), in this process's environment;
    /// `inheriting` is a descriptor the child gets as `InheritedScratch.descriptor` (3): a
    /// scratch file without a name, which it could not open by one.
    public init(path: String, arguments: [String], standardOutput output: Stream = .inherited, standardError error: Stream = .inherited,
                inheriting: Int32? = nil) throws {
        self.arguments = arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 onto itself would keep close-on-exec: a descriptor that is already 3 is copied first.
        let inherited = inheriting.map { $0 == InheritedScratch.descriptor ? fcntl($0, F_DUPFD_CLOEXEC, 4) : $0 }
        defer { if let inherited, inherited != inheriting { close(inherited) } }
        if let inherited {
            guard inherited >= 0 else { throw MeridianError(.io, "cannot hand a scratch file to \(path): \(String(cString: strerror(errno)))") }
            posix_spawn_file_actions_adddup2(&actions, inherited, InheritedScratch.descriptor)
        }
        // Both ends of each pipe are made close-on-exec, so no other child inherits them (Glibc's
        // module has no pipe2); dup2 gives this child its end as descriptor 1 or 2, which stays
        // open across exec.
        var writingEnds: [Int32] = []
        func readingEnd(for stream: Stream, as target: Int32) throws -> Int32? {
            guard case .pipe = stream else { return nil }
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else {
                throw MeridianError(.io, "cannot make a pipe to \(path): \(String(cString: strerror(errno)))")
            }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            posix_spawn_file_actions_adddup2(&actions, ends[1], target)
            writingEnds.append(ends[1])
            return ends[0]
        }
        let outputEnd = try readingEnd(for: output, as: STDOUT_FILENO)
        let errorEnd: Int32?
        do {
            errorEnd = try readingEnd(for: error, as: STDERR_FILENO)
        } catch {
            outputEnd.map { _ = close($0) }
            writingEnds.forEach { close($0) }
            throw error
        }
        // The child starts with no signal blocked and every signal's default action, whatever
        // this process (or the one that started it) blocked or ignored: `terminate()` and Ctrl-C reach it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        let environment = Self.environment(naming: getpid()).map { strdup($0) }
        defer { environment.forEach { free($0) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, path, &actions, &attributes, argv + [nil], environment + [nil])
        // The child has its own copies of the writing ends; this process keeps only the reading ends.
        writingEnds.forEach { close($0) }
        guard status == 0 else {
            [outputEnd, errorEnd].compactMap { $0 }.forEach { close($0) }
            throw MeridianError(.unavailable, "cannot run \(path): \(String(cString: strerror(status)))")
        }
        self.pid = pid
        RunningChildren.add(pid)
        standardOutput = outputEnd
        standardError = errorEnd
    }

    /// The variable that tells a child its parent's process ID, for `endWithParent()`.
    static let parentVariable = "MERIDIAN_PARENT_PID"

    /// This process's environment for a child, with `parentVariable` naming `parent`.
    static func environment(naming parent: pid_t) -> [String] {
        var variables: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let variable = String(cString: pointer)
            if !variable.hasPrefix(parentVariable + "=") { variables.append(variable) }
            entry += 1
        }
        return variables + ["\(parentVariable)=\(parent)"]
    }

    /// In a helper started by `ChildProcess`: ends this process (SIGTERM, so its signal
    /// handler removes its temporary files) when the parent that started it ends, however that
    /// ends (SIGKILL included), so that no helper runs on for a parent that is gone. On Linux the
    /// kernel sends the signal (PR_SET_PDEATHSIG); everywhere, a thread checks every half second
    /// that the parent is still there. Does nothing in a process no `ChildProcess` started.
    /// (Linux sends the signal when the *thread* that started the child ends: children are
    /// started from a thread that outlives them, as every caller does, from the main thread.)
    public static func endWithParent() {
        guard let text = getenv(parentVariable).map({ String(cString: $0) }), let parent = pid_t(text) else { return }
        unsetenv(parentVariable)  // not for this process's own children (they get their own)
        #if os(Linux)
        _ = meridian_set_parent_death_signal(SIGTERM)
        #endif
        // The parent may have ended before the line above: the process is then another's child.
        guard getppid() == parent else {
            kill(getpid(), SIGTERM)
            return
        }
        // The parent passes its stopping signal on, and ends this process itself if it lingers.
        TemporaryFiles.parentEndsThisProcess()
        _ = try? WorkerThread {
            var pause = timespec(tv_sec: 0, tv_nsec: 500_000_000)
            while getppid() == parent { nanosleep(&pause, nil) }
            kill(getpid(), SIGTERM)
        }
    }

    deinit {
        [standardOutput, standardError].compactMap { $0 }.forEach { close($0) }
        if ended == nil {
            // Never left behind as a zombie, nor running on unread: a child still going is stopped.
            if !hasEnded { terminate() }
            _ = wait()
        }
    }

    /// Whether the child has ended (it is then reaped, and `wait()` returns at once).
    public var hasEnded: Bool {
        if ended != nil { return true }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return false }
        ended = Self.termination(status)
        RunningChildren.remove(pid)
        return true
    }

    /// Waits for the child to end.
    @discardableResult
    public func wait() -> Termination {
        if let ended { return ended }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let termination = Self.termination(status)
        ended = termination
        RunningChildren.remove(pid)
        return termination
    }

    /// Asks the child to stop (SIGTERM).
    public func terminate() {
        if ended == nil { kill(pid, SIGTERM) }
    }

    /// What waitpid's status says (the macros WIFEXITED and friends, which Swift does not import).
    private static func termination(_ status: Int32) -> Termination {
        let signal = status & 0x7F
        return signal == 0 ? .exit((status >> 8) & 0xFF) : .signal(signal)
    }
}
