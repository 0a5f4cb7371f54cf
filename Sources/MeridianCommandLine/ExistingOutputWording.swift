import MeridianFormats

extension ExistingOutput: WordedForCommandLine {
    /// The library's message: it names no option.
    public var commandLineMessage: String { message }

    /// How to go on, with the option every subcommand that writes a file takes to replace it.
    /// A file that appeared while the run wrote is someone else's, just made: no option is
    /// offered to replace it.
    public var commandLineHint: String? {
        appearedDuringRun ? hint : "remove it, choose another path, or pass --force to replace it"
    }
}
