import Foundation
import MeridianTestSupport
import Testing

/// An output that exists is not replaced unless the run is asked to (`--force`), for every
/// subcommand that writes a file: refused with cannot-create-output (73), naming the path, and
/// left byte for byte as it was; with `--force` the run succeeds and the file is the new
/// output; an input is never the output, `--force` or not (64). A named pipe or a character
/// device is written to, never replaced, and needs no `--force`.
@Suite struct ExistingOutputTests {
    static let countries = fixture("geojson/ne_10m_countries_sample.geojson")
    static let coverage = fixture("coverage/cases/bay-area.geojson")

    /// One file-writing run: its arguments with `OUTPUT` where the output's path goes.
    struct Writer: CustomStringConvertible, Sendable {
        let name: String
        let arguments: [String]
        var description: String { name }
    }

    static let writers: [Writer] = [
        Writer(name: "convert", arguments: ["convert", countries, "-o", "OUTPUT.geojson"]),
        Writer(name: "convert to KMZ", arguments: ["convert", countries, "-o", "OUTPUT.kmz"]),
        Writer(name: "convert to GeoPackage (GDAL)", arguments: ["convert", countries, "-o", "OUTPUT.gpkg", "-q"]),
        Writer(name: "convert to MapKit Swift", arguments: ["convert", coverage, "-o", "OUTPUT.swift"]),
        Writer(name: "simplify", arguments: ["simplify", countries, "--zoom-level", "3", "-o", "OUTPUT.geojson"]),
        Writer(name: "clip", arguments: ["clip", countries, "--bbox", "5.9,45.8,10.5,47.8", "-o", "OUTPUT.geojson"]),
        Writer(name: "geodesic", arguments: ["geodesic", "--from", "33.9416,-118.4085", "--to", "40.6413,-73.7781", "-o", "OUTPUT.geojson"]),
        Writer(name: "circle", arguments: ["circle", "--center", "37.3349,-122.0090", "--radius", "5000", "-o", "OUTPUT.kml"]),
        Writer(name: "render", arguments: ["render", coverage, "-o", "OUTPUT.svg", "--size", "200x100"]),
        Writer(name: "coverage make", arguments: ["coverage", "make", coverage, "-o", "OUTPUT.geojson"]),
        Writer(name: "coverage fix", arguments: ["coverage", "fix", coverage, "-o", "OUTPUT.geojson"]),
        Writer(name: "coverage validate --preview", arguments: ["coverage", "validate", coverage, "--preview", "OUTPUT.png", "--size", "200x100"]),
        Writer(name: "tile into MBTiles", arguments: ["tile", countries, "OUTPUT.mbtiles", "--zoom", "0-1", "-q"]),
        Writer(name: "tile into PMTiles", arguments: ["tile", countries, "OUTPUT.pmtiles", "--zoom", "0-1", "-q"]),
        Writer(name: "tile rasters into MBTiles", arguments: ["tile", fixture("raster/rgbsmall.tif"), "OUTPUT.mbtiles", "--zoom", "8-9", "-q"]),
    ]

    /// The output path a writer's `OUTPUT…` names in `folder`.
    func outputPath(_ writer: Writer, in folder: URL) -> String {
        let named = writer.arguments.first { $0.hasPrefix("OUTPUT") }!
        return folder.appendingPathComponent(named.replacingOccurrences(of: "OUTPUT", with: "out")).path
    }

    /// Whether a run did its work: 0, or 1 where a coverage check said no (its file still written).
    func wrote(_ result: RunResult) -> Bool { result.status == 0 || result.status == ExitStatus.checkFailed }

    /// The run with its output in place.
    func run(_ writer: Writer, into output: String, _ extra: [String] = []) throws -> RunResult {
        let named = writer.arguments.first { $0.hasPrefix("OUTPUT") }!
        return try meridian(writer.arguments.map { $0 == named ? output : $0 } + extra)
    }

    /// Someone's file at the output's path: refused (73) naming it, its bytes untouched, and no
    /// file left beside it; with --force the run replaces it with its output.
    @Test(arguments: writers)
    func anExistingFileIsRefusedUnlessForced(_ writer: Writer) throws {
        try withTemporaryFolder { folder in
            let output = outputPath(writer, in: folder)
            let theirs = Data("someone's work, not Meridian's\n".utf8)
            try theirs.write(to: URL(fileURLWithPath: output))
            let refused = try run(writer, into: output)
            #expect(refused.status == ExitStatus.cannotCreateOutput, "\(writer): \(refused.status) \(refused.stderr)")
            #expect(refused.stderr.contains((output as NSString).lastPathComponent) && refused.stderr.contains("--force"), "\(writer): \(refused.stderr)")
            #expect(FileManager.default.contents(atPath: output) == theirs, "\(writer) changed the file it refused")
            #expect(contents(of: folder) == [(output as NSString).lastPathComponent], "\(writer) left \(contents(of: folder))")

            let forced = try run(writer, into: output, ["--force"])
            #expect(wrote(forced), "\(writer) --force: \(forced.stderr)")
            let written = FileManager.default.contents(atPath: output)
            #expect(written != nil && written != theirs && written!.count > 0, "\(writer) --force did not replace the file")
            #expect(!contents(of: folder).contains { $0.hasPrefix(".") }, "\(writer) --force left \(contents(of: folder))")
        }
    }

    /// A second run into the output of a first is refused, the first's output left as it was;
    /// with --force it runs again.
    @Test(arguments: writers)
    func aSecondRunIntoTheSameOutputNeedsForce(_ writer: Writer) throws {
        try withTemporaryFolder { folder in
            let output = outputPath(writer, in: folder)
            let first = try run(writer, into: output)
            #expect(wrote(first), "\(writer): \(first.stderr)")
            let made = FileManager.default.contents(atPath: output)
            #expect(made != nil, "\(writer) wrote nothing")
            let second = try run(writer, into: output)
            #expect(second.status == ExitStatus.cannotCreateOutput, "\(writer) again: \(second.status) \(second.stderr)")
            #expect(FileManager.default.contents(atPath: output) == made, "\(writer) again changed the output")
            let forced = try run(writer, into: output, ["--force"])
            #expect(forced.status == first.status, "\(writer) --force: \(forced.stderr)")
        }
    }

    /// --force never lets a run write over one of its inputs (usage, 64, as without it), nor
    /// through a symbolic link, nor over a folder (73): each is left as it was.
    @Test func forceReplacesOnlyARegularFileThatIsNoInput() throws {
        try withTemporaryFolder { folder in
            let input = folder.appendingPathComponent("in.geojson").path
            try FileManager.default.copyItem(atPath: Self.countries, toPath: input)
            let before = FileManager.default.contents(atPath: input)
            let coverage = folder.appendingPathComponent("coverage.geojson").path
            try FileManager.default.copyItem(atPath: Self.coverage, toPath: coverage)
            let coverageBefore = FileManager.default.contents(atPath: coverage)
            let link = folder.appendingPathComponent("link.geojson").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: input)
            for arguments in [["convert", input, "-o", input], ["convert", input, "-o", link], ["simplify", input, "--zoom-level", "3", "-o", input],
                              ["coverage", "fix", coverage, "-o", coverage], ["render", input, "--from", "geojson", "-o", input, "--to", "svg"]] {
                let result = try meridian(arguments + ["--force"])
                #expect(result.status == ExitStatus.usage && result.stderr.contains("input"), "\(arguments): \(result.status) \(result.stderr)")
                #expect(FileManager.default.contents(atPath: input) == before && FileManager.default.contents(atPath: coverage) == coverageBefore,
                        "\(arguments) --force changed its input")
            }
            let other = folder.appendingPathComponent("other.geojson").path
            try Data("theirs".utf8).write(to: URL(fileURLWithPath: other))
            let otherLink = folder.appendingPathComponent("other-link.geojson").path
            try FileManager.default.createSymbolicLink(atPath: otherLink, withDestinationPath: other)
            let throughLink = try meridian(["convert", input, "-o", otherLink, "--force"])
            #expect(throughLink.status == ExitStatus.cannotCreateOutput && throughLink.stderr.contains("link"), "\(throughLink.stderr)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: otherLink) == other)
            #expect(FileManager.default.contents(atPath: other) == Data("theirs".utf8))
            let box = folder.appendingPathComponent("box.geojson")
            try FileManager.default.createDirectory(at: box, withIntermediateDirectories: true)
            let overFolder = try meridian(["convert", input, "-o", box.path, "--force"])
            #expect(overFolder.status == ExitStatus.cannotCreateOutput, "\(overFolder.stderr)")
            #expect(contents(of: box).isEmpty)
        }
    }

    /// A Shapefile's companion (`.dbf`) that exists is someone's file too: refused, the run
    /// leaving nothing, unless --force.
    @Test func aShapefilesCompanionIsNotReplacedUnlessForced() throws {
        try withTemporaryFolder { folder in
            let dbf = folder.appendingPathComponent("roads.dbf").path
            try Data("theirs".utf8).write(to: URL(fileURLWithPath: dbf))
            let shapefile = folder.appendingPathComponent("roads.shp").path
            let refused = try meridian(["convert", Self.countries, "-o", shapefile, "-q"])
            #expect(refused.status == ExitStatus.cannotCreateOutput && refused.stderr.contains("roads.dbf"), "\(refused.stderr)")
            #expect(contents(of: folder) == ["roads.dbf"], "\(contents(of: folder))")
            #expect(FileManager.default.contents(atPath: dbf) == Data("theirs".utf8))
            let forced = try meridian(["convert", Self.countries, "-o", shapefile, "-q", "--force"])
            #expect(forced.status == 0, "\(forced.stderr)")
            #expect(contents(of: folder).contains("roads.shp") && FileManager.default.contents(atPath: dbf) != Data("theirs".utf8))
        }
    }

    /// `/dev/stdout`, `/dev/fd/1` (and `/dev/stderr`, `/dev/fd/N`) name this run's own
    /// descriptors: the user asks for standard output, as with `-`, and gets it, whatever the
    /// subcommand, never "a symbolic link". An output that must be a file at a path (a tile
    /// pyramid, a GeoPackage) or `--force` is refused as with `-` (64), and a descriptor not
    /// open for writing (standard input) too.
    @Test func descriptorPathsAreStandardOutput() throws {
        let direct = try meridian(["convert", Self.countries])
        for path in ["/dev/stdout", "/dev/fd/1", "//dev//stdout", "/proc/self/fd/1"] {
            let written = try meridian(["convert", Self.countries, "-o", path])
            #expect(written.status == 0 && written.stdout == direct.stdout, "\(path): \(written.stderr)")
        }
        let toError = try meridian(["convert", Self.countries, "-o", "/dev/stderr"])
        #expect(toError.status == 0 && toError.stderr == direct.stdout && toError.stdout.isEmpty, "/dev/stderr")
        let simplified = try meridian(["simplify", Self.countries, "--zoom-level", "3"])
        let simplifiedToPath = try meridian(["simplify", Self.countries, "--zoom-level", "3", "-o", "/dev/stdout"])
        #expect(simplifiedToPath.status == 0 && simplifiedToPath.stdout == simplified.stdout, "\(simplifiedToPath.stderr)")
        let made = try meridian(["coverage", "make", "--bbox", "-122.6,37.2,-121.6,38.1"])
        let madeToPath = try meridian(["coverage", "make", "--bbox", "-122.6,37.2,-121.6,38.1", "-o", "/dev/fd/1"])
        #expect(madeToPath.status == 0 && madeToPath.stdout == made.stdout && !made.stdout.isEmpty, "\(madeToPath.stderr)")
        for arguments in [["convert", Self.countries, "-o", "/dev/stdout", "--to", "gpkg", "-q"],
                          ["convert", Self.countries, "-o", "/dev/stderr", "--to", "gpkg", "-q"],
                          ["convert", Self.countries, "-o", "/dev/stdout", "--force"],
                          ["convert", Self.countries, "-o", "/dev/stdin"],
                          ["tile", Self.countries, "/dev/stdout", "--max-zoom", "1"],
                          ["tile", Self.countries, "/dev/stderr", "--max-zoom", "1"]] {
            let refused = try meridian(arguments)
            #expect(refused.status == 64 && !refused.stderr.contains("symbolic link"), "\(arguments): \(refused.status) \(refused.stderr)")
        }
    }

    /// A named pipe and /dev/null are written to as streams: no --force, nothing staged beside
    /// them, the pipe still a pipe and its reader given the whole output.
    @Test func aPipeOrADeviceIsWrittenToNotReplaced() throws {
        let devNull = try meridian(["convert", Self.countries, "-o", "/dev/null", "--to", "geojson"])
        #expect(devNull.status == 0, "\(devNull.stderr)")
        var status = stat()
        #expect(lstat("/dev/null", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR, "/dev/null is no longer a device")
        try withTemporaryFolder { folder in
            let pipe = folder.appendingPathComponent("pipe").path
            #expect(mkfifo(pipe, 0o600) == 0)
            let reader = Process()
            reader.executableURL = URL(fileURLWithPath: "/bin/sh")
            let copy = folder.appendingPathComponent("read.geojson").path
            reader.arguments = ["-c", "cat \"$0\" > \"$1\"", pipe, copy]
            try reader.run()
            let written = try meridian(["convert", Self.countries, "-o", pipe, "--to", "geojson"])
            if reader.isRunning {
                // The run never opened the pipe: its reader is let go (end of file) rather than left waiting.
                let writer = open(pipe, O_WRONLY | O_NONBLOCK)
                if writer >= 0 { close(writer) }
            }
            reader.waitUntilExit()
            #expect(written.status == 0, "\(written.stderr)")
            #expect(lstat(pipe, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the pipe was replaced")
            let direct = try meridian(["convert", Self.countries])
            #expect(FileManager.default.contents(atPath: copy) == Data(direct.stdout.utf8), "the pipe's reader got another output")
            #expect(Set(contents(of: folder)) == ["pipe", "read.geojson"], "\(contents(of: folder))")
        }
    }

    /// --force where there is no file to replace, or where a file is never replaced, is a usage
    /// error saying why: standard output, validate without --preview, a folder of tiles, a
    /// resumed run, a shard.
    @Test func forceWhereItDoesNothingIsRefused() throws {
        try withTemporaryFolder { folder in
            let mbtiles = folder.appendingPathComponent("t.mbtiles").path
            let runs: [[String]] = [
                ["convert", Self.countries, "--force"],
                ["convert", Self.countries, "-o", "-", "--force"],
                ["coverage", "make", Self.coverage, "--force"],
                ["coverage", "validate", Self.coverage, "--force"],
                ["tile", Self.countries, folder.appendingPathComponent("tiles").path, "--zoom", "0-1", "--force"],
                ["tile", Self.countries, mbtiles, "--zoom", "0-1", "--resume", "--force"],
                ["tile", Self.countries, mbtiles, "--zoom", "0-1", "--shard", "0/2", "--force"],
                ["tile-copy", mbtiles, folder.appendingPathComponent("copy").path, "--force"],
                ["tile-join", mbtiles, "-o", folder.appendingPathComponent("joined").path, "--force"],
            ]
            for arguments in runs {
                let result = try meridian(arguments)
                #expect(result.status == ExitStatus.usage && result.stderr.contains("--force"), "\(arguments): \(result.status) \(result.stderr)")
            }
            #expect(contents(of: folder).isEmpty, "\(contents(of: folder))")
        }
    }

    /// tile-copy and tile-join into an existing MBTiles or PMTiles file: refused, untouched;
    /// with --force replaced by the new tile set.
    @Test func tileCopyAndJoinReplaceAFileOnlyWhenForced() throws {
        try withTemporaryFolder { folder in
            let source = folder.appendingPathComponent("source.pmtiles").path
            #expect(try meridian(["tile", Self.countries, source, "--zoom", "0-1", "-q"]).status == 0)
            for name in ["copy.mbtiles", "copy.pmtiles"] {
                for arguments in [["tile-copy", source], ["tile-join", source, "-o"]] {
                    let output = folder.appendingPathComponent(name).path
                    let theirs = Data("someone's \(name)".utf8)
                    try theirs.write(to: URL(fileURLWithPath: output))
                    let refused = try meridian(arguments + [output, "-q"])
                    #expect(refused.status == ExitStatus.cannotCreateOutput && refused.stderr.contains(name), "\(arguments) \(name): \(refused.stderr)")
                    #expect(FileManager.default.contents(atPath: output) == theirs)
                    let forced = try meridian(arguments + [output, "-q", "--force"])
                    #expect(forced.status == 0, "\(arguments) \(name) --force: \(forced.stderr)")
                    #expect(FileManager.default.contents(atPath: output) != theirs)
                    let info = try meridian(["info", output])
                    #expect(info.status == 0, "\(name) replaced by a pyramid that does not read: \(info.stderr)")
                }
            }
        }
    }
}
