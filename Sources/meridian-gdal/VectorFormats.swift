import ArgumentParser
import GDALSupport
import MeridianCommandLine
import MeridianFormats
import MeridianOGR

/// `meridian-gdal formats`, hidden: runs the `FormatsRequest` that `meridian formats` parsed,
/// listing what Meridian reads and writes itself, and what the installed GDAL adds.
enum Formats: RequestRunInPlace {
    static func run(_ request: FormatsRequest) throws {
        try Reporter().run {
            let out = OutputSink.standardOutput()
            out.write("Meridian's own (read, write):\n")
            for format in FormatRegistry.meridian.formats {
                let modes = [format.canRead ? "read" : nil, format.canWrite ? "write" : nil].compactMap { $0 }.joined(separator: ", ")
                out.write("  \(format.id.padding(12)) \(format.displayName.padding(22)) \(format.mediaType.padding(38)) .\(format.extensions.joined(separator: " ."))  (\(modes))\n")
            }
            out.write("\nGDAL \(GDAL.version)'s vector drivers, through meridian-gdal (by name with --from and --to;\n")
            out.write("by extension only \(CommonGDALFormat.extensionList)):\n")
            for driver in OGRFormats.drivers {
                let modes = driver.canWrite ? "read, write" : "read"
                let extensions = driver.extensions.isEmpty ? "" : "." + driver.extensions.joined(separator: " .")
                out.write("  \(driver.name.padding(16)) \(extensions.padding(16)) (\(modes))  \(driver.longName)\n")
            }
            try out.flush()
        }
    }
}

/// `meridian-gdal ogr-read`: a GDAL vector dataset streamed out as a GeoJSON text sequence, for
/// `meridian` to read through a pipe. Not for people: `meridian convert file.shp` runs it, and
/// reports the warnings and the error this prints as JSON lines on standard error.
enum OGRRead: RequestServedToParent {
    static func serve(_ request: OGRReadRequest, reporter: Reporter) throws {
        let driver = try request.driver.map { try OGRFormats.driver(named: $0, path: nil) }
        // Standard input's copy: the parent's file without a name, inherited, read under the format's extension.
        let inherited = request.input == InheritedScratch.argument
            ? try MappedInputFile(descriptor: InheritedScratch.descriptor, fileExtension: request.fileExtension, name: request.name ?? "<stdin>")
            : nil
        try withExtendedLifetime(inherited) {
            let reader = try OGRReader(path: inherited?.path ?? request.input, name: request.name, layer: request.layer, driver: driver?.name,
                                       diagnostics: reporter.report)
            let out = OutputSink.standardOutput()
            try copyFeatures(from: reader, to: GeoJSONWriter(sink: out, sequence: true))
            try out.flush()
        }
    }
}

/// `meridian-gdal ogr-write`: a GeoJSON text sequence written through a GDAL driver, staged and
/// moved into place. Not for people: `meridian convert … -o file.gpkg` runs it, and reports
/// the warnings and the error this prints as JSON lines on standard error.
enum OGRWrite: RequestServedToParent {
    static func serve(_ request: OGRWriteRequest, reporter: Reporter) throws {
        let driver = try OGRFormats.driver(named: request.driver, path: request.output)
        // The asking run's inputs, which no file the driver writes beside the output may be.
        RunInputs.record(identities: request.inputs)
        // The features: the parent's scratch file without a name, inherited (or a path).
        let source = try FeatureFormat.geoJSONSeq.reader(for: InheritedScratch.open(request.input))
        // The staged folder is no file a signal handler can remove: a signal stops the
        // writing between features, and the folder goes with the abandoned output.
        try TemporaryFiles.stoppingInOrder {
            let writer = try OGRWriter(driver: driver, path: request.output, diagnostics: reporter.report, replacing: request.replacing)
            do {
                try copyFeatures(from: source, to: writer)
                try writer.commit()
            } catch {
                writer.abandon()
                throw error
            }
        }
    }
}

/// `meridian-gdal ogr-driver`: runs the `OGRDriverRequest` of `meridian`, which asks before
/// any work when `--from` or `--to` names a format it does not know, so a mistyped name fails at
/// once: the driver the name means (its short name, then its extensions, one line each), or the
/// usage error naming the nearest formats; and the drivers that write an extension, one a line,
/// for the hint when an output's extension is not a common one. Its error is printed as
/// `meridian`'s own (it runs as a child on `meridian`'s standard error).
enum OGRDriverLookup: RequestRunInPlace {
    static func run(_ request: OGRDriverRequest) throws {
        try Reporter().run {
            let out = OutputSink.standardOutput()
            if let fileExtension = request.fileExtension {
                for driver in OGRFormats.writers(forExtension: fileExtension) { out.write(driver.name + "\n") }
            }
            if let name = request.name {
                let driver = try OGRFormats.driver(named: name, path: nil)
                out.write("\(driver.name)\n\(driver.extensions.joined(separator: " "))\n")
            }
            try out.flush()
        }
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
