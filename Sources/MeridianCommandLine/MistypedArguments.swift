import ArgumentParser
import MeridianCore
import MeridianFormats

/// A word on the command line that names nothing the command knows: a subcommand, an option,
/// a value of an option that takes one of a list, or a typed value (`ArgumentValue`: a box, a
/// tile, a size) that does not parse. swift-argument-parser suggests a near
/// option only once everything else has parsed, so a mistyped required option
/// (`--zoom-levle 6`) shows up as the validation error it causes ("give --zoom-scale or
/// --zoom-level"), and a mistyped subcommand as "unexpected arguments". When parsing fails,
/// this looks for the word that caused it and names the nearest one that exists.
///
/// What the commands take is read from swift-argument-parser's description of them (the
/// JSON `--experimental-dump-help` prints), only after parsing has failed: nothing runs on a
/// good command line.
struct MistypedArgument: Sendable, Equatable {
    var message: String
    var hint: String

    /// Options every command answers whatever its own arguments (swift-argument-parser's).
    static let builtInOptions: Set<String> = ["help", "version", "generate-completion-script", "experimental-dump-help"]

    /// The first mistyped word in `arguments` (without the program name), reading them as
    /// `command` (the root command's description) would; nil when every word is known.
    static func find(in arguments: [String], commands root: CommandDescription) -> MistypedArgument? {
        var command = root
        var path = [root.name]
        var positionals = 0
        var index = 0
        func help() -> String { "`\(path.joined(separator: " ")) --help`" }
        /// Checks a value given to `option`; nil when it is one it takes.
        func check(_ value: String, of option: CommandDescription.Argument, named name: String) -> MistypedArgument? {
            if let type = ArgumentValues.type(withValueName: option.valueName) {
                return type.init(argument: value) == nil ? type.syntax.mistake(value, givenTo: name) : nil
            }
            guard let allowed = option.allValues, !allowed.contains(value) else { return nil }
            return MistypedArgument(message: "'\(value)' is not a value of \(name)",
                                    hint: Suggestions.closest(to: value, among: allowed).map { "did you mean '\($0)'? (\(allowed.joined(separator: ", ")))" }
                                        ?? "\(name) takes \(allowed.joined(separator: ", "))")
        }
        /// Checks the next positional word against the argument it fills (a repeating last
        /// one takes the rest).
        func checkPositional(_ word: String) -> MistypedArgument? {
            defer { positionals += 1 }
            let arguments = command.arguments.filter(\.isPositional)
            guard let argument = positionals < arguments.count ? arguments[positionals] : arguments.last, let valueName = argument.valueName else {
                return nil
            }
            return check(word, of: argument, named: "<\(valueName)>")
        }
        /// The value after an option that takes one, when it is there.
        func takeValue(_ option: CommandDescription.Argument) -> String? {
            guard index < arguments.count, option.takesAnyValue || !looksLikeOption(arguments[index]) else { return nil }
            defer { index += 1 }
            return arguments[index]
        }

        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if word == "--" {  // the rest are positional values
                for value in arguments[index...] { if let mistake = checkPositional(value) { return mistake } }
                return nil
            }
            if word.hasPrefix("--") && word.count > 2 {
                let body = word.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                guard let option = command.argument(long: name) else {
                    if builtInOptions.contains(name) { continue }
                    return MistypedArgument(message: "unknown option '--\(name)'",
                                            hint: Suggestions.closest(to: name, among: command.longNames).map { "did you mean '--\($0)'?" }
                                                ?? "\(help()) lists the options")
                }
                guard option.takesValue else { continue }
                let value = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : takeValue(option)
                if let value, let mistake = check(value, of: option, named: "--\(name)") { return mistake }
            } else if looksLikeOption(word) {
                // One short option, or several run together (-qo PATH); a value may follow attached.
                let letters = Array(word.dropFirst())
                for (offset, letter) in letters.enumerated() {
                    guard let option = command.argument(short: letter) else {
                        return MistypedArgument(message: "unknown option '-\(letter)'", hint: "\(help()) lists the options")
                    }
                    guard option.takesValue else { continue }
                    let rest = String(letters[(offset + 1)...])
                    let value = rest.isEmpty ? takeValue(option) : rest.hasPrefix("=") ? String(rest.dropFirst()) : rest
                    if let value, let mistake = check(value, of: option, named: "-\(letter)") { return mistake }
                    break
                }
            } else if positionals == 0 && !command.subcommands.isEmpty {
                if let subcommand = command.subcommands.first(where: { $0.name == word || $0.aliases.contains(word) }) {
                    command = subcommand
                    path.append(subcommand.name)
                    continue
                }
                guard !command.hasPositionals else {
                    if let mistake = checkPositional(word) { return mistake }
                    continue
                }
                let shown = command.subcommands.filter(\.isShown).flatMap { [$0.name] + $0.aliases }
                return MistypedArgument(message: "unknown subcommand '\(word)'",
                                        hint: Suggestions.closest(to: word, among: shown).map { "did you mean '\($0)'?" }
                                            ?? "\(help()) lists the subcommands")
            } else if let mistake = checkPositional(word) {
                return mistake
            }
        }
        return nil
    }

    /// `-q`, `--to`: a dash and a letter. A negative number (`-33.9,151.2`) is a value.
    static func looksLikeOption(_ word: String) -> Bool {
        guard word.hasPrefix("-"), word.count > 1 else { return false }
        let second = word[word.index(after: word.startIndex)]
        return second == "-" || second.isLetter
    }
}

/// What a command takes, as swift-argument-parser describes it (`_dumpHelp()`'s JSON, the
/// format behind `--experimental-dump-help` and its manual pages): names, subcommands and
/// arguments, and for each option its names and the values it allows.
struct CommandDescription: Sendable {
    struct Argument: Sendable {
        var longNames: [String]
        var shortNames: [Character]
        /// An option (takes a value) rather than a flag or a positional argument.
        var takesValue: Bool
        /// The value may start with a dash (`parsing: .unconditional`).
        var takesAnyValue: Bool
        /// The only values it takes (an enumeration's), if it says.
        var allValues: [String]?
        /// What its value is called in help (`w,s,e,n`), which names an `ArgumentValue` type.
        var valueName: String?
        var isPositional: Bool
    }

    var name: String
    var aliases: [String]
    var isShown: Bool
    var arguments: [Argument]
    var subcommands: [CommandDescription]

    /// The description of `command` and its subcommands; nil if it cannot be read.
    init?(_ command: ParsableCommand.Type) {
        let text = command._dumpHelp()
        guard let json = try? LocatedJSON.parse(BufferedInput(bytes: Array(text.utf8), name: "<help>")),
              let root = json["command"] else { return nil }
        self.init(root)
    }

    init?(_ json: LocatedJSON) {
        guard let name = json["commandName"]?.string else { return nil }
        self.name = name
        aliases = json["aliases"]?.elements?.compactMap(\.string) ?? []
        if case .bool(let shown, _)? = json["shouldDisplay"] { isShown = shown } else { isShown = true }
        subcommands = json["subcommands"]?.elements?.compactMap(CommandDescription.init) ?? []
        arguments = (json["arguments"]?.elements ?? []).map(Self.argument)
    }

    static func argument(_ json: LocatedJSON) -> Argument {
        let names = json["names"]?.elements ?? []
        func named(_ kind: String) -> [String] { names.filter { $0["kind"]?.string == kind }.compactMap { $0["name"]?.string } }
        let kind = json["kind"]?.string
        return Argument(longNames: named("long"), shortNames: named("short").compactMap(\.first),
                        takesValue: kind == "option", takesAnyValue: json["parsingStrategy"]?.string == "unconditional",
                        allValues: json["allValues"]?.elements?.compactMap(\.string), valueName: json["valueName"]?.string,
                        isPositional: kind == "positional")
    }

    func argument(long name: String) -> Argument? { arguments.first { $0.longNames.contains(name) } }
    func argument(short letter: Character) -> Argument? { arguments.first { $0.shortNames.contains(letter) } }
    var longNames: [String] { arguments.flatMap(\.longNames) }
    var hasPositionals: Bool { arguments.contains(where: \.isPositional) }
}

extension CommandDescription {
    /// The names of the command `arguments` run, from the root (`["meridian", "coverage", "make"]`):
    /// the leading words that name subcommands.
    func path(of arguments: [String]) -> [String] {
        var command = self
        var path = [name]
        for word in arguments {
            guard let subcommand = command.subcommands.first(where: { $0.name == word || $0.aliases.contains(word) }) else { break }
            command = subcommand
            path.append(subcommand.name)
        }
        return path
    }
}

extension ParsableCommand {
    /// Parses the command line and runs the command, as `main()` does, but every error is
    /// reported in Meridian's one voice (`meridian: error: message` and a hint, never
    /// swift-argument-parser's `Error:` and `Usage:`): when parsing fails because of a mistyped
    /// subcommand, option or option value, it says which word and suggests the nearest one the
    /// command knows; any other usage error (a missing argument, a value `validate()` refuses)
    /// is worded with a hint naming the subcommand's help. Usage errors exit 64; help and
    /// version print as swift-argument-parser prints them.
    public static func mainSuggestingCorrections(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        var command: ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            exit(reporting: error, arguments: arguments)
        }
        do {
            try command.run()
        } catch {
            exit(reporting: error, arguments: arguments)
        }
    }

    /// Ends the process for an error that parsing or running the command let through.
    private static func exit(reporting error: any Error, arguments: [String]) -> Never {
        let code = exitCode(for: error)
        // Help, version and completion scripts (exit 0), and an exit code whose error was printed already.
        if code == .success || error is ExitCode { exit(withError: error) }
        let reporter = Reporter()
        if let failure = error as? any MeridianFailure {
            let (message, hint) = failure.commandLineWording
            reporter.report(Diagnostic(.error, message, at: failure.location, hint: hint))
            exit(withError: ExitCode(failure.exitCode))
        }
        let commands = CommandDescription(self)
        if code == .validationFailure, let commands, let mistake = MistypedArgument.find(in: arguments, commands: commands) {
            reporter.report(Diagnostic(.error, mistake.message, hint: mistake.hint))
            exit(withError: ExitCode.validationFailure)
        }
        let path = (commands?.path(of: arguments) ?? [_commandName]).joined(separator: " ")
        reporter.report(Diagnostic(.error, Self.lowercasingFirstWord(message(for: error)),
                                   hint: code == .validationFailure ? "`\(path) --help` shows how to use it" : nil))
        exit(withError: ExitCode(code.rawValue))
    }

    /// swift-argument-parser's sentence ("Missing expected argument …") as Meridian's messages
    /// start, in lower case; a word in capitals (a format, `KML`) stays.
    static func lowercasingFirstWord(_ message: String) -> String {
        let letters = Array(message.prefix(2))
        guard letters.count == 2, letters[0].isUppercase, letters[1].isLowercase else { return message }
        return letters[0].lowercased() + message.dropFirst()
    }
}
