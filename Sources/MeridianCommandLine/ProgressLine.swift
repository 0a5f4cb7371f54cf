import MeridianFormats
import MeridianCore

/// A one-line progress report on stderr, redrawn in place, for long runs on a terminal.
/// Silent when stderr is not a terminal (pipelines, CI logs) or with --quiet.
public final class ProgressLine {
    private let enabled: Bool
    private let input: BufferedInput?
    private var lastDraw = 0.0
    private var drawn = false
    private let start = ProgressLine.now()

    /// A progress line that draws only when standard error is a terminal.
    /// - Parameters:
    ///   - quiet: Draw nothing (the command's `--quiet`).
    ///   - input: The input being read, whose bytes consumed (and size, for a file) ``update(features:)`` shows; nil shows features only.
    public init(quiet: Bool, input: BufferedInput? = nil) {
        enabled = !quiet && isatty(STDERR_FILENO) == 1
        self.input = input
    }

    /// Redraws at most ten times a second.
    public func update(features: Int) {
        guard enabled else { return }
        let now = Self.now()
        guard now - lastDraw >= 0.1 else {
            undrawnFeatures = features
            return
        }
        draw(features: features, now: now)
    }

    /// The count of the last update not drawn, which ``finish()`` draws: the line ends with
    /// the true count (and all of a file read), not where the last tenth of a second fell.
    private var undrawnFeatures: Int?

    private func draw(features: Int, now: Double) {
        undrawnFeatures = nil
        lastDraw = now
        var line = "\r\u{1B}[K\(features) feature\(features == 1 ? "" : "s")"
        if let input {
            let megabytes = Double(input.bytesConsumed) / 1_048_576
            line += ", \(Int(megabytes)) MB"
            if let size = input.fileSize, size > 0 {
                line += " of \(size / 1_048_576) MB (\(input.bytesConsumed * 100 / size)%)"
            }
            let elapsed = now - start
            if elapsed > 0 { line += ", \(Int(megabytes / elapsed)) MB/s" }
        }
        Reporter.printError(line, newline: false)
        drawn = true
    }

    /// Draws any one-line status (at most ten times a second; always when `force`).
    public func update(text: String, force: Bool = false) {
        guard enabled else { return }
        let now = Self.now()
        guard force || now - lastDraw >= 0.1 else { return }
        lastDraw = now
        Reporter.printError("\r\u{1B}[K" + text, newline: false)
        drawn = true
    }

    /// Draws the last count given if it was not, then clears the line, so what follows starts clean.
    public func finish() {
        if drawn, let undrawnFeatures { draw(features: undrawnFeatures, now: Self.now()) }
        if drawn { Reporter.printError("\r\u{1B}[K", newline: false) }
    }

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
