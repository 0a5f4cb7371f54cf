import MeridianCommandLine
import MeridianRaster
import MeridianTiling
import Synchronization

/// The progress line of a tiling run, which the tiler's worker threads draw one at a time.
public final class TilingProgressLine: Sendable {
    private let line: Mutex<ProgressLine>

    /// A line drawn on standard error when it is a terminal and `quiet` is false.
    public init(quiet: Bool) {
        line = Mutex(ProgressLine(quiet: quiet))
    }

    /// Draws `progress` (at most ten times a second).
    public func show(_ progress: TilingProgress) {
        line.withLock { $0.update(text: TilingJobText.progress(done: progress.done, total: progress.total, seconds: progress.seconds)) }
    }

    /// Draws the run's end: its true count of tiles as all of them (the count shown along the
    /// way is of at most `TilingProgress.total`, a bound the run stays under), whatever the
    /// last drawing showed.
    public func complete(_ summary: TilingSummary) {
        let text = TilingJobText.progress(done: summary.totalTiles, total: summary.totalTiles, seconds: summary.seconds)
        line.withLock { $0.update(text: text, force: true) }
    }

    /// Clears the line.
    public func finish() {
        line.withLock { $0.finish() }
    }
}
