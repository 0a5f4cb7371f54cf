import ArgumentParser
import MeridianCore
import MeridianFormats

/// Prints diagnostics and errors on stderr in the `meridian: error: FILE:LINE:COLUMN: message`
/// form, and turns errors into the exit codes of sysexits(3).
public struct Reporter: Sendable {
    /// Whether to print errors only: warnings and notes are dropped.
    public var quiet = false
    /// The name errors start with: `meridian: error: …`.
    public var program = "meridian"
    /// Diagnostics as JSON lines (`Diagnostic.jsonLine`), for a helper process whose parent
    /// reports them (`meridian-gdal ogr-read` and `ogr-write`, run by `meridian`).
    public var jsonLines = false

    /// A reporter for `meridian`'s messages, in the human-readable form.
    /// - Parameter quiet: Print errors only.
    public init(quiet: Bool = false) {
        self.quiet = quiet
    }

    /// A helper process's reporter: everything, as JSON lines, for the parent to report.
    public static let toParentProcess: Reporter = {
        var reporter = Reporter()
        reporter.jsonLines = true
        return reporter
    }()

    /// Prints one diagnostic on standard error (unless ``quiet`` drops it): `program: severity: location: message`, then its hint; or a JSON line for a parent process.
    /// - Parameter diagnostic: The warning, note or error to print.
    public func report(_ diagnostic: Diagnostic) {
        if quiet && diagnostic.severity < .error { return }
        if jsonLines {
            Self.printError(diagnostic.jsonLine)
            return
        }
        var line = "\(program): \(diagnostic.severity.rawValue): "
        if let location = diagnostic.location { line += "\(location): " }
        line += diagnostic.message
        if let hint = diagnostic.hint { line += "\n  hint: \(hint)" }
        Self.printError(line)
    }

    /// Writes text straight to standard error, unbuffered, so it keeps its place among the output.
    /// - Parameters:
    ///   - text: The text, as it is.
    ///   - newline: Whether a newline follows it (false for a progress line redrawn in place).
    public static func printError(_ text: String, newline: Bool = true) {
        var text = newline ? text + "\n" : text
        // write(2) on the descriptor: unbuffered, so messages keep their order with the output.
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if n <= 0 { return }
                offset += n
            }
        }
    }

    /// Runs a subcommand's work: a library's error is printed, in the command line's words
    /// where the executable gives them (`WordedForCommandLine`), and becomes its exit code.
    public func run(_ body: () throws -> Void) throws {
        TemporaryFiles.removeOnSignals()
        ChildProcess.endWithParent()
        let reporter = self
        OutputClaim.leftoverNotes = { reporter.report($0) }
        do {
            try body()
        } catch let interruption as TemporaryFiles.Interruption {
            throw Self.exitInterrupted(by: interruption.signal)
        } catch where TemporaryFiles.stopRequested != nil {
            // Whatever failed after a signal asked the work to stop (a helper the same Ctrl-C
            // ended) failed because of it.
            throw Self.exitInterrupted(by: TemporaryFiles.stopRequested!)
        } catch let error as any MeridianFailure {
            let (message, hint) = error.commandLineWording
            report(Diagnostic(.error, message, at: error.location, hint: hint))
            throw ExitCode(error.exitCode)
        }
    }
}

extension Reporter {
    /// The interruption note printed, and the exit code for the work stopped in order by `signal`
    /// (128 + it, as when a signal ends the process).
    static func exitInterrupted(by signal: Int32) -> ExitCode {
        if let note = TemporaryFiles.interruptionNoteText { Reporter.printError(note, newline: false) }
        return ExitCode(128 + signal)
    }
}

/// A library error as a person at the command line reads it: in the terms of the options they
/// typed (`--bands 4: the raster has 3 bands`), with a hint that names the option to change.
/// The executables conform the libraries' typed errors to this; an error that does not conform
/// is printed in the library's own words.
public protocol WordedForCommandLine: MeridianFailure {
    var commandLineMessage: String { get }
    var commandLineHint: String? { get }
}

extension MeridianFailure {
    /// The message and hint a person at the command line reads: the executable's wording
    /// (`WordedForCommandLine`) where it gives one, else the library's.
    public var commandLineWording: (message: String, hint: String?) {
        guard let worded = self as? any WordedForCommandLine else { return (message, hint) }
        return (worded.commandLineMessage, worded.commandLineHint)
    }
}
