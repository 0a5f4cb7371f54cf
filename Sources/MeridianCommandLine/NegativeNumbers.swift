import ArgumentParser
import MeridianFormats

/// Half the planet has negative latitudes or longitudes, so a value that starts with a minus
/// sign (`-33.86,151.21`, `-5`, `-122.6,37.2,-121.6,38.1`) must be taken as a value, never as
/// an option, wherever it is typed: as a positional argument (`mapkit point -33.86,151.21`) or
/// after an option (`circle --radius -5`, which then gets its range error).
///
/// swift-argument-parser takes every word that starts with `-` for an option. Before parsing,
/// `NegativeNumbers.protect` rewrites such words into forms it reads as values: after an
/// option that takes a value, `--radius -5` becomes `--radius=-5`; a positional one is moved,
/// with the positional words after it, behind a `--` terminator. Which options take values
/// comes from the command's own description of itself (ArgumentParser's tool info), read only
/// when a word needs it, so ordinary start-up costs nothing.
public enum NegativeNumbers {
    /// Whether `word` is a number or a list of numbers (separated by commas, slashes, spaces or
    /// an x) that starts with a minus sign and a digit (no option is named like that).
    public static func isNegativeValue(_ word: String) -> Bool {
        let bytes = Array(word.utf8)
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "-") else { return false }
        let second = bytes[1]
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(second) || second == UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { Self.valueBytes.contains($0) }
    }

    private static let valueBytes = Set("0123456789.,-+eE/xX ".utf8)  // xX: a size, -3x4

    /// `arguments` (without the program's name) made safe to parse for `command`.
    public static func protect(_ arguments: [String], for command: any ParsableCommand.Type) -> [String] {
        guard arguments.contains(where: isNegativeValue), let root = CommandDescription(command) else { return arguments }
        return protect(arguments, commands: root)
    }

    static func protect(_ arguments: [String], commands root: CommandDescription) -> [String] {
        var result: [String] = []
        var moved: [String] = []  // positional words from the first negative one on, for after `--`
        var command = root
        var naming = true  // still reading subcommand names (`mapkit point`)
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if word == "--" {
                moved += arguments[index...]
                break
            }
            if naming, let subcommand = command.subcommands.first(where: { $0.name == word || $0.aliases.contains(word) }) {
                command = subcommand
                result.append(word)
                continue
            }
            naming = false
            if MistypedArgument.looksLikeOption(word) {
                result.append(word)
                // The option's value, when it takes one and was not given as `--name=value`.
                if !word.contains("="), command.takesValue(word), index < arguments.count {
                    let value = arguments[index]
                    index += 1
                    if isNegativeValue(value) { result[result.count - 1] = word + "=" + value } else { result.append(value) }
                }
                continue
            }
            if isNegativeValue(word) || !moved.isEmpty { moved.append(word) } else { result.append(word) }
        }
        return moved.isEmpty ? result : result + ["--"] + moved
    }
}

extension CommandDescription {
    /// Whether `word` (`--name`, or `-n`) names an option that takes a value.
    func takesValue(_ word: String) -> Bool {
        if word.hasPrefix("--") { return argument(long: String(word.dropFirst(2)))?.takesValue ?? false }
        return word.count == 2 && (argument(short: word.last!)?.takesValue ?? false)
    }
}
