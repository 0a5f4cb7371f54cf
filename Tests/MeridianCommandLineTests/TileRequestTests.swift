import MeridianCommandLine
import MeridianCore
import MeridianTilingRequest
import Testing

/// `meridian tile`'s request travels to `meridian-gdal tile` as words and comes back whole:
/// every field, nil kept apart from a default, values exactly.
struct TileRequestTests {
    /// A request with every field given, values chosen to be awkward (negative numbers, `=`
    /// and `:` in names, paths starting with a dash).
    static var everyField: TileRequest {
        var job = TilingJobRequest(inputs: ["-odd.tif", "a=b.kap"], output: "out dir/tiles.mbtiles", jobs: 3)
        job.tileFormat = .webp
        job.zooms = 2...11
        job.scheme = .tms
        job.tileSize = 512
        job.background = RGB(1, 2, 250)
        (job.resume, job.viewer, job.kml, job.finish) = (true, true, true, true)
        job.shard = TileShard("2/7")
        job.shardCount = 7
        job.raster.source = RasterSourceOptions(bands: [3, 2, 1], noData: -9999.5,
                                                controlPoints: [ControlPoint(pixel: 0.25, line: 10, latitude: -33.8688, longitude: 151.2093),
                                                                ControlPoint(pixel: 1e-7, line: 3, latitude: 0.1, longitude: -0.2),
                                                                ControlPoint(pixel: 1024, line: 768, latitude: 89.5, longitude: -179.999)],
                                                controlPointMethod: .tps, cutCollar: false)
        (job.raster.quilt, job.raster.overzoom, job.raster.resampling) = (.detail, 2, .lanczos)
        job.raster.measurement.gdalWarperOnly = true
        job.raster.measurement.timesStages = true
        job.raster.measurement.gdalCacheMegabytes = 128
        job.raster.excludedValues = ExcludedValues(colours: [RGB(255, 255, 255), RGB(0, 0, 0)], thresholdPercent: 37.5)
        job.layerNames = ["roads", "a:b"]
        job.vector.maximumTileBytes = 9000
        job.vector.maximumTileFeatures = 12
        job.vector.dropRate = 1.75
        job.vector.baseZoom = 9
        job.vector.overLimit = .coalesceDensest
        job.vector.extendZoomsIfStillDropping = true
        job.vector.reducesTinyPolygons = false
        job.vector.clusterDistance = 40
        job.vector.accumulations = [("pop:total", .sum), ("name", .comma)]
        (job.vector.included, job.vector.excluded, job.vector.excludesAll) = (["name", "kind"], ["id"], true)
        var request = TileRequest(job: job)
        request.inputList = "charts.txt"
        request.shardFromEnvironment = true
        request.plan = .json
        request.quiet = true
        request.command = ["-odd.tif", "a=b.kap", "out dir/tiles.mbtiles", "--gcp", "0.25,10,-33.8688,151.2093"]
        return request
    }

    @Test func everyFieldTravelsExactly() throws {
        let request = Self.everyField
        #expect(request.words.allSatisfy { !$0.hasPrefix("-") })
        let back = try TileRequest(words: request.words)
        #expect(back == request)
        #expect(back.job.raster.source.controlPoints[1].pixel == 1e-7)
        #expect(back.job.vector.accumulations.map(\.name) == ["pop:total", "name"])
    }

    /// A choice not made stays nil on the other side: the job refuses only what was asked.
    @Test func choicesNotMadeStayNil() throws {
        let request = TileRequest(job: TilingJobRequest(inputs: ["in.geojson"], output: "tiles"))
        #expect(request.words.count == 3)   // input.0, output, scheme
        let back = try TileRequest(words: request.words)
        #expect(back == request)
        #expect(back.job.jobs == nil && back.job.tileSize == nil && back.job.raster.quilt == nil && back.job.raster.resampling == nil)
        #expect(back.job.raster.source.controlPointMethod == nil && back.plan == nil && back.command.isEmpty)
        #expect(TilingChoice.made(in: back.job).isEmpty)
    }

    @Test(arguments: [["output=t", "colour=red"], ["output=t", "quilt=random"], ["output=t", "resume=no"], ["output=t", "zooms=9-3"],
                      ["input.0=a", "input.2=c", "output=t"], ["output=t", "gcp.0=1,2,3"], ["input.0=a"], ["output=t", "background=300,0,0"]])
    func malformedRequestsAreRefused(_ words: [String]) {
        let error = #expect(throws: MeridianError.self) { try TileRequest(words: words) }
        #expect(error?.kind == .usage)
    }

    /// The command line names the option of every choice a run may refuse, and says why.
    @Test func everyRefusedChoiceIsWorded() {
        let request = Self.everyField.job
        let made = TilingChoice.made(in: request)
        #expect(made.count == 29)
        for choice in made {
            #expect(choice.optionName.hasPrefix("--"))
            let kind = TilingJobKind.allCases.first { !choice.appliesTo.contains($0) }!
            let (message, hint) = choice.refusal(for: kind)
            #expect(message.hasPrefix("\(choice.optionName) applies to ") && message.contains(kind.name) && hint.contains(choice.optionName))
        }
        #expect(Set(made.map(\.optionName)).count == made.count)
    }

    @Test func tilePyramidRequestsTravelExactly() throws {
        for copy in [TileCopyRequest(source: "-a b.mbtiles", destination: "c=d/"), TileCopyRequest(source: "a", destination: "b.pmtiles", zooms: 3...9, quiet: true)] {
            #expect(try TileCopyRequest(words: copy.words) == copy)
        }
        var join = TileJoinRequest(inputs: ["one.pmtiles", "-two/", "x=y.mbtiles"], output: "out.pmtiles")
        #expect(try TileJoinRequest(words: join.words) == join)
        (join.csv, join.csvKey, join.included, join.excluded) = ("table.csv", "ISO_A3", ["name", "a:b"], ["id"])
        (join.excludesAll, join.noTileSizeLimit, join.quiet) = (true, true, true)
        #expect(try TileJoinRequest(words: join.words) == join)
        #expect(throws: MeridianError.self) { try TileJoinRequest(words: ["input.0=a"]) }
        #expect(throws: MeridianError.self) { try TileCopyRequest(words: ["source=a", "destination=b", "zooms=x"]) }
    }

    /// `formats` travels as a request of no words; any word is `meridian`'s mistake (64), never
    /// an option the helper parses.
    @Test func formatsRequestHasNoWords() throws {
        #expect(FormatsRequest().words.isEmpty && FormatsRequest().arguments == ["formats"])
        #expect(try FormatsRequest(words: []) == FormatsRequest())
        for words in [["--bogus"], ["zoom=3"]] {
            #expect(throws: MeridianError.self) { try FormatsRequest(words: words) }
            #expect((try? FormatsRequest(words: words)) == nil)
            do { _ = try FormatsRequest(words: words) } catch let error as MeridianError { #expect(error.kind == .usage) }
        }
    }

    /// `ogr-driver` requests travel exactly, a name that starts with a dash or holds `=` too,
    /// and no word is ever taken for an option.
    @Test func driverLookupsTravelExactly() throws {
        for request in [OGRDriverRequest(name: "GPKG"), OGRDriverRequest(fileExtension: "xml"), OGRDriverRequest(name: "-x=y", fileExtension: "-gml")] {
            #expect(request.arguments.first == "ogr-driver")
            #expect(try OGRDriverRequest(words: request.words) == request)
            #expect(request.words.allSatisfy { !$0.hasPrefix("-") })
        }
        #expect(OGRDriverRequest().words.isEmpty)
        #expect(throws: MeridianError.self) { try OGRDriverRequest(words: ["--extension", "gpkg"]) }
    }
}
