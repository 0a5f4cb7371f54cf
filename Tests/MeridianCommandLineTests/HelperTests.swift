import ArgumentParser
import MeridianCore
import MeridianFormats
import MeridianGeometry
import Testing
@testable import MeridianCommandLine

@Suite struct ChildProcessTests {
    @Test func pipesAndExitCode() throws {
        let child = try ChildProcess(path: "/bin/sh", arguments: ["-c", "echo out; echo err >&2; exit 3"], standardOutput: .pipe, standardError: .pipe)
        #expect(String(decoding: everything(from: child.standardOutput!), as: UTF8.self) == "out\n")
        #expect(String(decoding: everything(from: child.standardError!), as: UTF8.self) == "err\n")
        #expect(child.wait() == .exit(3) && child.hasEnded)
    }

    @Test func aStoppedChildEndsBySignal() throws {
        let child = try ChildProcess(path: "/bin/sh", arguments: ["-c", "exec sleep 30"])
        #expect(!child.hasEnded)
        child.terminate()
        #expect(child.wait() == .signal(15))
    }

    @Test func aProgramThatCannotRunIsAnError() {
        #expect(throws: MeridianError.self) { try ChildProcess(path: "/nonexistent/meridian-draw", arguments: []) }
    }

    /// A helper's warnings go to the handler and its error comes back with its exit code's kind.
    @Test func helperDiagnosticsComeBackAsMeridiansOwn() throws {
        let warning = Diagnostic(.warning, "a field was renamed").jsonLine, error = Diagnostic(.error, "cannot open it", hint: "check it").jsonLine
        let script = "printf '%s\\n' '\(warning)' '\(error)' >&2; exit 65"
        let child = try ChildProcess(path: "/bin/sh", arguments: ["-c", script], standardError: .pipe)
        nonisolated(unsafe) var warnings: [String] = []
        #expect(throws: MeridianError(.badInput, "cannot open it", hint: "check it")) {
            try HelperDiagnostics(of: child, helper: "meridian-test").finish(warnings: { warnings.append($0.message) })
        }
        #expect(warnings == ["a field was renamed"])
    }
}

@Suite struct HelperRequestTests {
    /// What `meridian` passes `meridian-draw` reads back as the very same request, negative
    /// numbers, awkward paths and all.
    @Test(arguments: [
        PictureRequest(kind: .png, options: PictureOptions(), input: "/tmp/features.geojsons"),
        PictureRequest(kind: .svg, options: PictureOptions(width: 480, height: 320, scale: 3, heading: -75.25,
                                                           view: MapRect(x: 0.1 + 0.2, y: 1.0 / 3.0, width: 12_345.678_9, height: 1e-7),
                                                           basemap: "-tiles/chart dir=x"),
                       input: "-odd name=\n.geojsons"),
    ])
    func picturesTravelExactly(_ request: PictureRequest) throws {
        #expect(request.arguments.first == "picture")
        #expect(try PictureRequest(words: Array(request.arguments.dropFirst())) == request)
        #expect(request.words.allSatisfy { !$0.hasPrefix("-") })  // never taken for an option
    }

    /// `ogr-read` and `ogr-write` requests, with and without their optional fields.
    @Test(arguments: [
        OGRReadRequest(input: "roads.gpkg"),
        OGRReadRequest(input: "/tmp/stdin-1.shp", name: "<stdin>", driver: "ESRI Shapefile", layer: "=a layer, with = signs"),
    ])
    func ogrReadsTravelExactly(_ request: OGRReadRequest) throws {
        #expect(request.arguments.first == "ogr-read")
        #expect(try OGRReadRequest(words: request.words) == request)
    }

    @Test(arguments: [
        OGRWriteRequest(input: "/tmp/spill.geojsons", driver: nil, output: "out.gpkg"),
        OGRWriteRequest(input: "/tmp/spill.geojsons", driver: "MapInfo File", output: "-dash/out.tab"),
        OGRWriteRequest(input: "/tmp/spill.geojsons", driver: nil, output: "out.shp", inputs: ["2049:1234", "66306:7"]),
    ])
    func ogrWritesTravelExactly(_ request: OGRWriteRequest) throws {
        #expect(request.arguments.first == "ogr-write")
        #expect(try OGRWriteRequest(words: request.words) == request)
    }

    /// `tile-read` and `tiles` requests, with and without their optional fields.
    @Test(arguments: [TileReadRequest(input: "countries.mbtiles"), TileReadRequest(input: "-tiles/x=y", zoom: 0, layer: "=roads, =")])
    func tileReadsTravelExactly(_ request: TileReadRequest) throws {
        #expect(request.arguments.first == "tile-read")
        #expect(try TileReadRequest(words: request.words) == request)
        #expect(request.words.allSatisfy { !$0.hasPrefix("-") })
    }

    @Test(arguments: [DrawTilesRequest(input: "/tmp/tiles-1.geojsons", zoom: 3, tileSize: 256, jobs: 1),
                      DrawTilesRequest(input: "-odd name=\n.geojsons", zoom: 24, tileSize: 512, jobs: 8),
                      DrawTilesRequest(input: "/tmp/tiles-2.geojsons", zoom: 9, tileSize: 256, jobs: 2, shard: TileShardOwnership(index: 3, count: 4))])
    func drawnTileRequestsTravelExactly(_ request: DrawTilesRequest) throws {
        #expect(request.arguments.first == "tiles")
        #expect(try DrawTilesRequest(words: request.words) == request)
        #expect(request.words.allSatisfy { !$0.hasPrefix("-") })
    }

    /// A zoom level out of range or not a whole number, a tile size the tiler does not make, no
    /// jobs, a shard that is not K/N, a missing field or a field the request does not have: refused.
    @Test(arguments: [
        ["input=a", "zoom=31", "tile-size=256"], ["input=a", "zoom=-1", "tile-size=256"], ["input=a", "zoom=1-2", "tile-size=256"],
        ["input=a", "zoom=1", "tile-size=300"], ["input=a", "zoom=1", "tile-size=256", "jobs=0"], ["zoom=1", "tile-size=256"],
        ["input=a", "tile-size=256"], ["input=a", "zoom=1"], ["input=a", "zoom=1", "tile-size=256", "shard=4/4"],
        ["input=a", "zoom=1", "tile-size=256", "shard=1"], ["input=a", "zooms=1-2", "tile-size=256"],
    ])
    func malformedDrawnTileRequestsAreRefused(_ words: [String]) {
        #expect(throws: MeridianError.self) { try DrawTilesRequest(words: words) }
    }

    @Test(arguments: [["input=a", "zoom=five"], ["zoom=3"], ["input=a", "scheme=tms"]])
    func malformedTileReadRequestsAreRefused(_ words: [String]) {
        #expect(throws: MeridianError.self) { try TileReadRequest(words: words) }
    }

    /// A word that is not one of the request's fields, a field given twice or missing, or a
    /// number that does not read is refused, never ignored.
    @Test(arguments: [
        ["input=a", "colour=red"], ["input=a", "input=b"], ["driver=GPKG"], ["--input=a"], ["input"],
    ])
    func malformedReadRequestsAreRefused(_ words: [String]) {
        #expect(throws: MeridianError.self) { try OGRReadRequest(words: words) }
    }

    @Test(arguments: [
        ["kind=png", "input=a", "width=wide"], ["kind=png", "input=a", "view=1,2,3"], ["kind=png", "input=a", "heading=nan"],
        ["kind=tiff", "input=a"], ["kind=png"],
    ])
    func malformedPictureRequestsAreRefused(_ words: [String]) {
        #expect(throws: MeridianError.self) { try PictureRequest(words: words) }
    }
}
