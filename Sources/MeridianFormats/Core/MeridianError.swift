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
    public var exitCode: Int32 { kind.exitCode }
}

/// An error that stops a run. Its `kind` decides the process's exit code (sysexits.h),
/// so scripts can tell bad data from a missing file from a full disk.
public struct MeridianError: MeridianFailure, Hashable, CustomStringConvertible {
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

        /// The kind whose exit code is `exitCode` (a helper process's, passed on).
        public init?(exitCode: Int32) {
            guard let kind = [Kind.usage, .badInput, .inputUnavailable, .cannotCreateOutput, .io].first(where: { $0.exitCode == exitCode }) else {
                return nil
            }
            self = kind
        }

        public var exitCode: Int32 {
            switch self {
            case .usage: 64
            case .badInput: 65
            case .inputUnavailable: 66
            case .cannotCreateOutput: 73
            case .io: 74
            }
        }
    }

    public var kind: Kind
    public var message: String
    public var location: SourceLocation?
    public var hint: String?

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
