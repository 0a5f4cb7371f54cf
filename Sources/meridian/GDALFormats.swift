import ArgumentParser
import Foundation
import MeridianFormats
import MeridianGeometry

/// GDAL/OGR's vector formats (GeoPackage, Shapefile, FlatGeobuf, GML, …) for every subcommand,
/// served by `meridian-gdal` so that this process never loads GDAL:
///
/// - reading runs `meridian-gdal ogr-read PATH`, which streams the features back as a GeoJSON
///   text sequence on a pipe (numbers exact both ways);
/// - writing sets the features aside (a GeoJSON text sequence in a scratch file) and, on
///   commit, runs `meridian-gdal ogr-write`, which writes the file(s) out of sight and moves them
///   into place, so nothing partial is ever visible.
///
/// Any name or extension Meridian does not know is tried this way; `meridian-gdal` says (exit
/// 64) when GDAL does not know it either.
enum GDALFormats {
    static func format(name: String?, path: String?) -> FeatureFormat? {
        guard let id = name?.lowercased() ?? path.flatMap(fileExtension), !id.isEmpty else { return nil }
        return FeatureFormat(
            id: id, displayName: "\(id) (through GDAL)", extensions: [],
            reader: { input, _ in
                if let path = input.regularFilePath { return try ChildFeatureReader(["ogr-read", "--from", id, path], name: path) }
                // GDAL's drivers read files by path, most with random access: standard input or
                // a pipe is set aside first (named with the format's extension, which some drivers check),
                // and kept while the child reads it.
                let suffix = id.allSatisfy { $0.isLetter || $0.isNumber } ? ".\(id)" : ""
                let scratch = try ScratchFile(copying: input, as: "stdin", suffix: suffix)
                return try ChildFeatureReader(["ogr-read", "--from", id, "--name", input.name, scratch.path], name: input.name, keeping: scratch)
            },
            pathWriter: { path, options in try ChildFeatureWriter(format: id, path: path, options: options) }
        )
    }
}

extension FormatRegistry {
    /// Meridian's own formats, then GDAL's through `meridian-gdal`.
    static let commandLine = FormatRegistry.standard.adding(fallback: GDALFormats.format)
}

/// `meridian-gdal` run with its standard output on a pipe.
func runGDALHelper(_ arguments: [String], standardOutput: Any? = nil) throws -> Process {
    guard let helper = GDALForwarding.helperPath() else { throw GDALForwarding.helperMissing("reading and writing GDAL's formats") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: helper)
    process.arguments = arguments
    if let standardOutput { process.standardOutput = standardOutput }
    try process.run()
    return process
}

/// Features read by `meridian-gdal ogr-read`, streamed back as a GeoJSON text sequence.
final class ChildFeatureReader: FeatureReader {
    private let process: Process
    private let pipe = Pipe()
    private let reader: GeoJSONReader
    /// Standard input's copy, which the child reads.
    private let scratch: ScratchFile?

    init(_ arguments: [String], name: String, keeping scratch: ScratchFile? = nil) throws {
        self.scratch = scratch
        process = try runGDALHelper(arguments, standardOutput: pipe)
        let input = BufferedInput(fileDescriptor: pipe.fileHandleForReading.fileDescriptor, name: name, ownsDescriptor: false)
        reader = GeoJSONReader(input: input, layout: .sequence)
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    func readMetadata() throws -> CollectionMetadata {
        do { return try reader.readMetadata() } catch { try failIfChildFailed(); throw error }
    }

    func next() throws -> Feature? {
        let feature: Feature?
        do { feature = try reader.next() } catch { try failIfChildFailed(); throw error }
        if feature == nil { try failIfChildFailed() }
        return feature
    }

    var trailingMetadata: CollectionMetadata { reader.trailingMetadata }

    /// At the end of the stream: the child's own error was printed; exit with its code.
    private func failIfChildFailed() throws {
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw ExitCode(process.terminationStatus) }
    }
}

/// Features set aside, then written by `meridian-gdal ogr-write` on commit.
final class ChildFeatureWriter: PathFeatureWriter {
    private let format: String
    private let path: String
    private let spill: FeatureSpill

    init(format: String, path: String, options: WriteOptions) throws {
        self.format = format
        self.path = path
        spill = try FeatureSpill("gdal-output")
    }

    // (A text sequence carries no collection members: ogr-write names the layer after the file.)
    func begin(_ metadata: CollectionMetadata) throws {}
    func write(_ feature: Feature) throws { try spill.append(feature) }
    func finish(_ trailingMetadata: CollectionMetadata) throws { try spill.close() }

    func commit() throws {
        let process = try runGDALHelper(["ogr-write", "--to", format, "-o", path, spill.path])
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw ExitCode(process.terminationStatus) }
    }

    func abandon() {}
}
