import Foundation
import Testing

/// Per-position data, value types and coordinates through the command line (issue 29).
@Suite struct PositionsCommandTests {
    static let lakeWalk = packageRoot.appendingPathComponent("examples/data/lake-walk.kml").path

    /// The issue's example: simplifying the walk drops its middle positions, and the end point
    /// keeps the end time (07:18), where it used to get the second position's (07:05).
    @Test func simplifyKeepsEachTimeOnItsPosition() throws {
        try withTemporaryFolderPath { folder throws in
            let lines = try meridian(["convert", Self.lakeWalk, "--to", "geojsonseq", "-q"])
            let gpx = folder + "/w.gpx"
            let simplified = try meridian(["simplify", "--zoom-level", "12", "-o", gpx], stdin: lines.stdoutData)
            #expect(simplified.status == 0, "\(simplified.stderr)")
            let text = try String(contentsOfFile: gpx, encoding: .utf8)
            let track = try #require(text.range(of: "<trk>").map { String(text[$0.lowerBound...]) })
            #expect(track.contains("<trkpt lat=\"47.3551\" lon=\"8.552\">\n        <ele>412.0</ele>\n        <time>2024-05-04T07:18:00Z</time>"), "\(track)")
            #expect(!track.contains("07:05:00Z"))
            #expect(gpxSchemaProblems(atPath: gpx) == nil)
        }
    }

    /// Clipping keeps each kept position's time and gives the cut ends times in proportion.
    @Test func clipKeepsAndInterpolatesTimes() throws {
        let run = try meridian(["clip", Self.lakeWalk, "--bbox", "8.541,47.35,8.55,47.37", "--to", "geojsonseq", "-q"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\"times\":[\"2024-05-04T07:01:11Z\",\"2024-05-04T07:05:00Z\",\"2024-05-04T07:11:00Z\",\"2024-05-04T07:15:09Z\"]"), "\(run.stdout)")
    }

    /// The walk's track is 3D: the cut ends get altitudes between their segment's, so the GPX
    /// track has an `<ele>` at every point (a 2D cut end among 3D positions reads as 0 m in GDAL).
    @Test func clipGivesTheCutEndsOfA3DTrackAltitudes() throws {
        try withTemporaryFolderPath { folder throws in
            let gpx = folder + "/cut.gpx"
            let run = try meridian(["clip", Self.lakeWalk, "--bbox", "8.541,47.35,8.55,47.37", "-o", gpx, "-q"])
            #expect(run.status == 0, "\(run.stderr)")
            let text = try String(contentsOfFile: gpx, encoding: .utf8)
            let start = try #require(text.range(of: "<name>Morning walk</name>"))
            let end = try #require(text.range(of: "</trk>", range: start.upperBound..<text.endIndex))
            let track = String(text[start.lowerBound..<end.lowerBound])
            let points = track.components(separatedBy: "<trkpt ").count - 1
            #expect(points == 4, "\(track)")
            #expect(track.components(separatedBy: "<ele>").count - 1 == points, "\(track)")
            // The first cut end lies between 409 m and 408 m, nearer the first.
            #expect(track.contains("<trkpt lat=") && track.contains("<ele>408.7"), "\(track)")
            #expect(gpxSchemaProblems(atPath: gpx) == nil)
        }
    }

    /// An empty `<when/>` is an unknown time: GPX leaves the point without one (never
    /// `<time></time>`), and a time that is not a date and time is left out with a warning.
    @Test func gpxNeverWritesATimeItsSchemaRefuses() throws {
        let kml = """
            <kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document>
            <Placemark><name>walk</name><gx:Track><when>2024-05-04T07:00:00Z</when><when/><when>2024-05-04</when>
            <gx:coord>8 47</gx:coord><gx:coord>8.1 47.1</gx:coord><gx:coord>8.2 47.2</gx:coord></gx:Track></Placemark>
            <Placemark><name>stop</name><TimeStamp><when>yesterday</when></TimeStamp><Point><coordinates>8,47</coordinates></Point></Placemark>
            </Document></kml>
            """
        try withTemporaryFolderPath { folder throws in
            let gpx = folder + "/walk.gpx"
            let run = try meridian(["convert", "--from", "kml", "-o", gpx], stdin: Data(kml.utf8))
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("meridian: warning: 1 time is not a date and time"), "\(run.stderr)")
            let text = try String(contentsOfFile: gpx, encoding: .utf8)
            #expect(!text.contains("<time></time>") && !text.contains("<time>2024-05-04</time>"))
            #expect(text.contains("<time>2024-05-04T07:00:00Z</time>"))
            #expect(gpxSchemaProblems(atPath: gpx) == nil)
        }
    }

    static let offTheGlobe = """
        {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [8, 47]}},
        {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [200, 95]}}
        ]}
        """

    /// Outputs on the globe refuse a position outside ±90/±180 with its file and line (65).
    @Test(arguments: ["out.gpx", "out.kml", "out.kmz", "Out.swift", "out.svg", "out.png"])
    func geographicOutputsRefuseAPositionOffTheGlobe(_ output: String) throws {
        try withTemporaryFolderPath { folder throws in
            let input = folder + "/in.geojson"
            try Self.offTheGlobe.write(toFile: input, atomically: true, encoding: .utf8)
            let run = try meridian(["convert", input, "-o", folder + "/" + output])
            #expect(run.status == ExitStatus.badInput)
            #expect(run.stderr.hasPrefix("meridian: error: \(input):3:1: the position [200.0, 95.0] lies outside ±90° latitude and ±180° longitude"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/" + output))
        }
    }

    /// Other outputs keep the numbers, with one warning naming file and line.
    @Test(arguments: ["out.geojson", "out.csv", "out.wkt"])
    func otherOutputsKeepThemWithAWarning(_ output: String) throws {
        try withTemporaryFolderPath { folder throws in
            let input = folder + "/in.geojson"
            try Self.offTheGlobe.write(toFile: input, atomically: true, encoding: .utf8)
            let run = try meridian(["convert", input, "-o", folder + "/" + output])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.hasPrefix("meridian: warning: \(input):3:1: the position [200.0, 95.0] lies outside"), "\(run.stderr)")
        }
    }

    /// Google's Region samples hold `<north>68201018719</north>`: a coverage file, tiles and a
    /// picture refuse it (coverage make made a polygon to the pole of it).
    @Test(arguments: [["coverage", "make", "IN", "-o", "OUT/c.geojson"], ["tile", "IN", "OUT/tiles"], ["render", "IN", "-o", "OUT/r.png"]])
    func aRegionBoxOffTheGlobeIsRefused(_ arguments: [String]) throws {
        let kml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <kml xmlns="http://www.opengis.net/kml/2.2"><Document>
            <NetworkLink><name>r</name><Region><LatLonAltBox><north>68201018719</north><south>10</south><east>20</east><west>10</west></LatLonAltBox></Region></NetworkLink>
            </Document></kml>
            """
        try withTemporaryFolderPath { folder throws in
            let input = folder + "/region.kml"
            try kml.write(toFile: input, atomically: true, encoding: .utf8)
            let run = try meridian(arguments.map { $0 == "IN" ? input : $0.replacingOccurrences(of: "OUT", with: folder) })
            #expect(run.status == ExitStatus.badInput, "\(run.stderr)")
            #expect(run.stderr.contains("\(input):3: the position [10.0, 68201018719.0] lies outside"), "\(run.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["region.kml"])
        }
    }

    /// A GroundOverlay's LatLonBox counts too: its image is not tiled to a box off the globe.
    @Test func aGroundOverlayBoxOffTheGlobeIsNotTiled() throws {
        try withTemporaryFolderPath { folder throws in
            let box = try String(contentsOfFile: fixture("raster/ground-overlay.kml"), encoding: .utf8)
            let input = folder + "/overlay.kml"
            // (Just beyond the pole: the chart was tiled, exit 0, where the box reached past the world.)
            try box.replacingOccurrences(of: "<north>25.44</north>", with: "<north>95</north>").write(toFile: input, atomically: true, encoding: .utf8)
            try FileManager.default.copyItem(atPath: fixture("raster/389225main_sw_1965_1024.jpg"), toPath: folder + "/389225main_sw_1965_1024.jpg")
            let run = try meridian(["tile", input, folder + "/tiles", "--zoom", "1-2"])
            #expect(run.status == ExitStatus.badInput, "\(run.stderr)")
            #expect(run.stderr.contains("\(input):3: the position [-78.76, 95.0] lies outside ±90° latitude and ±180° longitude, which tiles cannot hold"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/tiles"))
        }
    }

    /// Every property keeps its type through each format that can carry it: an integer, a double
    /// with a whole value (POP_EST 38002.0 came back 38002 from KML), a boolean and a string.
    @Test(arguments: ["kml", "kmz", "csv", "gpkg"])
    func valuesKeepTheirTypes(_ format: String) throws {
        let feature = #"{"type":"Feature","properties":{"count":7,"POP_EST":38002.0,"share":0.25,"open":true,"name":"Vaduz"},"geometry":{"type":"Point","coordinates":[9.52,47.14]}}"#
        try withTemporaryFolderPath { folder throws in
            let input = folder + "/in.geojson", middle = folder + "/middle.\(format)"
            try feature.write(toFile: input, atomically: true, encoding: .utf8)
            let out = try meridian(["convert", input, "-o", middle])
            #expect(out.status == 0, "\(out.stderr)")
            let back = try meridian(["convert", middle, "--to", "geojsonseq", "-q"])
            #expect(back.status == 0, "\(back.stderr)")
            for member in [#""count":7"#, #""POP_EST":38002.0"#, #""share":0.25"#, #""open":true"#, #""name":"Vaduz""#] {
                #expect(back.stdout.contains(member), "\(format): \(member) in \(back.stdout)")
            }
        }
    }

    /// A GPX of a waypoint and two tracks (one of two segments, heart rates at some points) into
    /// CSV: a row per track point, numbered and placed as GDAL's GPX driver gives them in
    /// `track_points` (ogr2ogr's CSV of that layer, read with Python's csv module beside ours),
    /// with its time, elevation and heart rate in columns of their own and the track's name
    /// repeated; the waypoint a row of its own, its time in the same `time` column. (The track
    /// was one row: its WKT, and its times and heart rates in one JSON cell.)
    @Test(.enabled(if: OutsideToolsAcceptTheOutput.available("ogr2ogr") && OutsideToolsAcceptTheOutput.available("python3")))
    func tracksInCSVAreRowsOfPointsAsGDALNumbersThem() throws {
        try withTemporaryFolderPath { folder throws in
            func point(_ lat: Double, _ lon: Double, _ ele: Int, _ minute: Int, hr: Int?) -> String {
                let heart = hr.map { "<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>\($0)</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions>" } ?? ""
                return "<trkpt lat=\"\(lat)\" lon=\"\(lon)\"><ele>\(ele)</ele><time>2026-05-01T09:\(minute < 10 ? "0" : "")\(minute):00Z</time>\(heart)</trkpt>"
            }
            let gpx = """
                <?xml version="1.0" encoding="UTF-8"?>
                <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"
                     xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
                  <wpt lat="37.808" lon="-122.4177"><ele>3.5</ele><time>2026-05-01T08:59:00Z</time><name>Pier 39</name></wpt>
                  <trk><name>Morning, "early"</name><trkseg>\(point(37.808, -122.4177, 3, 0, hr: 95))\(point(37.8085, -122.415, 4, 1, hr: nil))</trkseg>
                    <trkseg>\(point(37.809, -122.41, 5, 5, hr: 101))\(point(37.81, -122.405, 6, 6, hr: 104))</trkseg></trk>
                  <trk><name>Evening</name><trkseg>\(point(37.7955, -122.3937, 7, 40, hr: 88))\(point(37.827, -122.423, 8, 50, hr: 90))\(point(37.83, -122.43, 9, 55, hr: 91))</trkseg></trk>
                </gpx>
                """
            try gpx.write(toFile: folder + "/walk.gpx", atomically: true, encoding: .utf8)
            let made = try meridian(["convert", folder + "/walk.gpx", "-o", folder + "/walk.csv"])
            #expect(made.status == 0, "\(made.stderr)")
            let gdal = try run("ogr2ogr", ["-f", "CSV", folder + "/gdal.csv", folder + "/walk.gpx", "track_points", "-lco", "GEOMETRY=AS_XY"])
            #expect(gdal.status == 0, "\(gdal.stderr)")
            let check = """
                import csv, datetime, json, sys
                ours = list(csv.DictReader(open(sys.argv[1], newline="")))
                gdal = list(csv.DictReader(open(sys.argv[2], newline="")))
                points = [row for row in ours if row["track_fid"] != ""]
                waypoints = [row for row in ours if row["track_fid"] == ""]
                problems = []
                if len(points) != len(gdal): problems.append(f"{len(points)} track point rows, GDAL {len(gdal)}")
                for mine, theirs in zip(points, gdal):
                    for column in ["track_fid", "track_seg_id", "track_seg_point_id"]:
                        if int(mine[column]) != int(theirs[column]): problems.append(f"{column}: {mine} vs {theirs}")
                    if (float(mine["longitude"]), float(mine["latitude"]), float(mine["altitude"])) != (float(theirs["X"]), float(theirs["Y"]), float(theirs["ele"])):
                        problems.append(f"position: {mine} vs {theirs}")
                    when = datetime.datetime.fromisoformat(mine["time"].replace("Z", "+00:00"))
                    if when != datetime.datetime.strptime(theirs["time"], "%Y/%m/%d %H:%M:%S+00").replace(tzinfo=datetime.timezone.utc):
                        problems.append(f"time: {mine['time']} vs {theirs['time']}")
                print(json.dumps({"problems": problems, "hr": [row["hr"] for row in points], "names": [row["name"] for row in points],
                                  "waypoints": [[row["name"], row["time"], row["hr"]] for row in waypoints]}))
                """
            let read = try run("python3", ["-c", check, folder + "/walk.csv", folder + "/gdal.csv"])
            #expect(read.status == 0, "\(read.stderr)")
            let result = try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: Any]
            #expect((result?["problems"] as? [String]) == [], "\(read.stdout)")
            #expect((result?["hr"] as? [String]) == ["95", "", "101", "104", "88", "90", "91"], "\(read.stdout)")
            #expect((result?["names"] as? [String]) == Array(repeating: "Morning, \"early\"", count: 4) + Array(repeating: "Evening", count: 3))
            #expect((result?["waypoints"] as? [[String]]) == [["Pier 39", "2026-05-01T08:59:00Z", ""]], "\(read.stdout)")
            let header = try String(contentsOfFile: folder + "/walk.csv", encoding: .utf8).split(separator: "\r\n").first ?? ""
            #expect(!header.contains("coordinateProperties") && !header.contains("WKT"), "\(header)")
        }
    }
}
