/// What every error the libraries throw tells: how it ends a run (`kind`, the exit code), where
/// (`location`), and what happened in the library's own words (`message`, `hint`), which never
/// name a command-line flag. Errors that carry facts a command line would word in its own
/// terms (`--bands` rather than "band 4 of 3") are typed enums conforming to this; the
/// executables give them their wording (`WordedForCommandLine`, in MeridianCommandLine).
public protocol MeridianFailure: Error, Sendable {
    var kind: MeridianError.Kind { get }
    var location: SourceLocation? { get }
    var message: String { get }
    var hint: String? { get }
}

extension MeridianFailure {
    /// The process exit code (sysexits.h) that this failure's ``MeridianError/Kind`` stands for.
    public var exitCode: Int32 { kind.exitCode }
}

/// An error that stops a run. Its `kind` decides the process's exit code (sysexits.h),
/// so scripts can tell bad data from a missing file from a full disk.
public struct MeridianError: MeridianFailure, Hashable, CustomStringConvertible {
    /// How an error ends a run; each kind has its own exit code from sysexits.h.
    public enum Kind: Hashable, Sendable {
        /// The command line is wrong (EX_USAGE, 64).
        case usage
        /// The input's data is malformed (EX_DATAERR, 65).
        case badInput
        /// The input does not exist or cannot be read (EX_NOINPUT, 66).
        case inputUnavailable
        /// The output cannot be created (EX_CANTCREAT, 73).
        case cannotCreateOutput
        /// Reading or writing failed part-way (EX_IOERR, 74).
        case io
        /// A helper executable or service the work needs is missing or cannot run (EX_UNAVAILABLE, 69).
        case unavailable

        /// The kind whose exit code is `exitCode` (a helper process's, passed on).
        public init?(exitCode: Int32) {
            guard let kind = [Kind.usage, .badInput, .inputUnavailable, .cannotCreateOutput, .io, .unavailable].first(where: { $0.exitCode == exitCode }) else {
                return nil
            }
            self = kind
        }

        /// The sysexits.h code a process exits with for this kind: 64, 65, 66, 69, 73 or 74.
        public var exitCode: Int32 {
            switch self {
            case .usage: 64
            case .badInput: 65
            case .inputUnavailable: 66
            case .cannotCreateOutput: 73
            case .io: 74
            case .unavailable: 69
            }
        }
    }

    /// How the error ends a run, and so the exit code.
    public var kind: Kind
    /// What happened, in the library's own words (never naming a command-line flag).
    public var message: String
    /// Where in the input it happened, when that is known (file, line and column for bad data).
    public var location: SourceLocation?
    /// A suggestion for what to do next, or nil.
    public var hint: String?

    /// An error to throw.
    /// - Parameters:
    ///   - kind: How it ends a run (which exit code).
    ///   - message: What happened.
    ///   - location: Where in the input, if known.
    ///   - hint: A suggestion for what to do next, if any.
    public init(_ kind: Kind, _ message: String, at location: SourceLocation? = nil, hint: String? = nil) {
        self.kind = kind
        self.message = message
        self.location = location
        self.hint = hint
    }

    /// `FILE:LINE:COLUMN: message`, the form the CLI prints after `meridian: error: `.
    public var description: String {
        if let location { return "\(location): \(message)" }
        return message
    }
}
