import ArgumentParser

/// What a helper's hidden subcommand does with a request that `meridian` parsed and then
/// replaced itself (exec) with the helper to run: `tile`, `tile-copy`, `tile-join`, `formats`
/// (or started it as a child that shares its standard error: `ogr-driver`). Unlike a request served to a
/// parent process (``HelperRequest/serve(_:_:)``), its messages are the user's own, on the
/// terminal `meridian` had.
public protocol RequestRunInPlace {
    /// The request it runs.
    associatedtype Request: HelperRequest
    /// Runs `request`, reporting as `meridian` does.
    static func run(_ request: Request) throws
}

/// The hidden subcommand of a helper that runs a ``RequestRunInPlace``: its words are decoded
/// into the request (one that does not read is `meridian`'s mistake, reported with exit 64),
/// then run.
public struct RunInPlace<Runner: RequestRunInPlace>: ParsableCommand {
    /// Named as the request's subcommand, hidden from help.
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: Runner.Request.subcommand, abstract: "Run the request meridian \(Runner.Request.subcommand) made (not for people).",
                             shouldDisplay: false)
    }

    /// The request's words, `name=value`.
    @Argument(parsing: .captureForPassthrough, help: "The request's words, name=value.")
    public var words: [String] = []

    /// An empty command, for ArgumentParser to fill.
    public init() {}

    /// Decodes the request and runs it.
    public func run() throws {
        var decoded: Runner.Request?
        try Reporter().run { decoded = try Runner.Request(words: words) }
        guard let request = decoded else { return }
        try Runner.run(request)
    }
}

/// What a helper's hidden subcommand does with a request a parent process sends it as a child
/// (`ogr-read`, `ogr-write`, `picture`, `tiles`, `tile-read`, `tile-info`): its warnings and
/// error go back to the parent as JSON lines (``HelperRequest/serve(_:_:)``), which words them.
public protocol RequestServedToParent {
    /// The request it serves.
    associatedtype Request: HelperRequest
    /// Serves `request`, reporting through `reporter` to the parent process.
    static func serve(_ request: Request, reporter: Reporter) throws
}

/// The hidden subcommand of a helper that serves a ``RequestServedToParent``: its words are
/// decoded into the request, which is served.
public struct ServedToParent<Server: RequestServedToParent>: ParsableCommand {
    /// Named as the request's subcommand, hidden from help.
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: Server.Request.subcommand, abstract: "Serve a request of a Meridian process (not for people).", shouldDisplay: false)
    }

    /// The request's words, `name=value`.
    @Argument(parsing: .captureForPassthrough, help: "The request's words, name=value.")
    public var words: [String] = []

    /// An empty command, for ArgumentParser to fill.
    public init() {}

    /// Decodes the request and serves it.
    public func run() throws {
        try Server.Request.serve(words) { request, reporter in try Server.serve(request, reporter: reporter) }
    }
}
