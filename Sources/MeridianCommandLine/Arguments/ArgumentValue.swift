import ArgumentParser

/// A value people type on the command line (a box, a tile, a size, a point), parsed once into
/// the libraries' types by its own type, which has the one validation and the one error text
/// for every option that takes it, in both executables.
///
/// A value that does not parse fails in swift-argument-parser; `mainSuggestingCorrections`
/// then finds the option it was given to (by the value name the option declares,
/// `syntax.valueName`) and words the error `--size takes WIDTHxHEIGHT (1 to 16384 each), not
/// '-3x4'`.
public protocol ArgumentValue: ExpressibleByArgument {
    static var syntax: ArgumentSyntax { get }
}

/// How a typed value is written, for help and for its one error text.
public struct ArgumentSyntax: Sendable {
    /// The value name options taking the value show in help and usage (`w,s,e,n`); declare the
    /// option with it, so a mistyped value gets its type's error text.
    public var valueName: String
    /// A value that parses, for the error's hint.
    public var example: String
    /// What a value looks like: `west,south,east,north in degrees`.
    public var form: String

    /// The error text for `text` given to `option` (`--bbox`, or a positional's `<z/x/y>`).
    func mistake(_ text: String, givenTo option: String) -> MistypedArgument {
        MistypedArgument(message: "\(option) takes \(form), not '\(text)'", hint: "for example \(option.hasPrefix("-") ? option + " " : "")\(example)")
    }
}

/// A value typed as comma-separated numbers (`-33.86,151.21`), one for each name in its value
/// name (`lat,lon`).
public protocol NumberListArgument: ArgumentValue {
    /// The value of these numbers; nil when they are out of its range.
    init?(numbers: [Double])
}

extension NumberListArgument {
    /// Parses as many comma-separated numbers as ``ArgumentSyntax/valueName`` names, then checks them with ``init(numbers:)``; nil when either fails.
    /// - Parameter argument: The text typed.
    public init?(argument: String) {
        let count = Self.syntax.valueName.split(separator: ",").count
        guard let numbers = commaSeparatedNumbers(argument, count: count) else { return nil }
        self.init(numbers: numbers)
    }
}

/// Every type of typed value, for finding the one a mistyped value was meant to be.
enum ArgumentValues {
    static let all: [any ArgumentValue.Type] = [
        LatLon.self, DegreeBox.self, MapRectArgument.self, TileAddress.self, ZoomRange.self, TileZooms.self, PictureSize.self, ControlPointArgument.self,
    ]

    /// The type whose options show `valueName`, if any.
    static func type(withValueName valueName: String?) -> (any ArgumentValue.Type)? {
        all.first { $0.syntax.valueName == valueName }
    }
}

/// Numbers typed by a person, comma-separated (`-122.6,37.2,-121.6,38.1`): nil when any of them
/// is not a number, or when there are not `count` of them, so no mistyped number is dropped.
private func commaSeparatedNumbers(_ text: String, count: Int) -> [Double]? {
    let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: " ")) }
    guard numbers.count == count, !numbers.contains(nil) else { return nil }
    return numbers.map { $0! }
}

/// A number typed for `option` is a finite number: Swift reads "nan" and "inf" as numbers,
/// which no option means (a radius of inf never ends a circle, a zoom scale of nan traps).
/// Every subcommand's `validate()` checks its number options with this.
/// - Throws: A `ValidationError` naming the option.
public func requireFinite(_ values: [(value: Double?, option: String)]) throws {
    for (value, option) in values {
        if let value, !value.isFinite { throw ValidationError("\(option) takes a finite number, not \(value)") }
    }
}

/// The ranges of a longitude and a latitude in degrees.
let longitudes = -180.0...180.0, latitudes = -90.0...90.0
