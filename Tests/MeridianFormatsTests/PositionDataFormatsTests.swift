import Foundation
import MeridianCore
import Testing
import MeridianGeometry
@testable import MeridianFormats

/// Per-position arrays through the readers and writers: each value stays on its position, and
/// arrays that do not fit their positions are dropped with a warning naming file and line.
@Suite struct PositionDataFormatsTests {
    func kml(_ placemark: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">
        <Document>
        \(placemark)
        </Document>
        </kml>
        """
    }

    func read(kml text: String) throws -> (features: [Feature], warnings: [Diagnostic]) {
        var warnings: [Diagnostic] = []
        let reader = KMLReader(input: BufferedInput(string: text, name: "track.kml"), readOptions: ReadOptions(diagnostics: { warnings.append($0) }))
        var features: [Feature] = []
        while let feature = try reader.next() { features.append(feature) }
        return (features, warnings)
    }

    func data(_ feature: Feature?) -> JSONObject? { feature?.properties?[PositionData.member]?.objectValue }

    @Test func anEmptyCoordDropsItsTimeAndValuesNotTheNextOnes() throws {
        let (features, warnings) = try read(kml: kml("""
            <Placemark><gx:Track>
              <when>2024-05-04T07:00:00Z</when><when>2024-05-04T07:01:00Z</when><when>2024-05-04T07:02:00Z</when>
              <gx:coord>8 47</gx:coord><gx:coord/><gx:coord>8.2 47.2</gx:coord>
              <ExtendedData><SchemaData><gx:SimpleArrayData name="hr"><gx:value>100</gx:value><gx:value>110</gx:value><gx:value>120</gx:value></gx:SimpleArrayData></SchemaData></ExtendedData>
            </gx:Track></Placemark>
            """))
        #expect(data(features.first) == ["times": ["2024-05-04T07:00:00Z", "2024-05-04T07:02:00Z"], "hr": ["100", "120"]])
        #expect(warnings.contains { $0.location?.line == 4 })
    }

    @Test func timesThatDoNotCountTheCoordsAreDroppedWithTheirLine() throws {
        let (features, warnings) = try read(kml: kml("""
            <Placemark><gx:Track>
              <when>2024-05-04T07:00:00Z</when>
              <when>2024-05-04T07:01:00Z</when>
              <gx:coord>8 47</gx:coord><gx:coord>8.1 47.1</gx:coord><gx:coord>8.2 47.2</gx:coord>
            </gx:Track></Placemark>
            """))
        #expect(data(features.first) == nil)
        let warning = try #require(warnings.first { $0.message.contains("'times'") })
        #expect(warning.location == SourceLocation(file: "track.kml", line: 5))
    }

    /// A MultiTrack whose first track has no times: the second track's times stay on the second line.
    @Test func aMultiTrackKeepsEachTracksTimesOnItsLine() throws {
        let (features, _) = try read(kml: kml("""
            <Placemark><gx:MultiTrack>
              <gx:Track><gx:coord>8 47</gx:coord><gx:coord>8.1 47.1</gx:coord></gx:Track>
              <gx:Track><when>2024-05-04T07:00:00Z</when><when/><gx:coord>9 47</gx:coord><gx:coord>9.1 47.1</gx:coord></gx:Track>
            </gx:MultiTrack></Placemark>
            """))
        #expect(data(features.first) == ["times": [[nil, nil], ["2024-05-04T07:00:00Z", nil]]])
    }

    @Test func geoJSONArraysThatDoNotFitAreDroppedWithTheirLine() throws {
        let result = try readAll(text: """
            {"type": "FeatureCollection", "features": [
            {"type": "Feature", "properties": {"coordinateProperties": {"times": ["a", "b"], "hr": [1, 2, 3]}},
             "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}}
            ]}
            """)
        #expect(data(result.features.first) == ["times": ["a", "b"]])
        #expect(result.warnings.contains { $0.location?.line == 2 && $0.message.contains("'hr'") })
    }

    /// A GPX track with a point without time, and a second segment without any: through KML,
    /// KMZ and GPX each time stays on its point (KML and KMZ lost them all when one was missing).
    @Test(arguments: ["kml", "kmz", "gpx", "geojson"])
    func partlyTimedTracksKeepTheirTimes(_ format: String) throws {
        let gpx = """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>walk</name>
            <trkseg><trkpt lat="1" lon="1"><time>2024-01-01T00:00:00Z</time></trkpt><trkpt lat="1.1" lon="1.1"/>
            <trkpt lat="1.2" lon="1.2"><time>2024-01-01T00:02:00Z</time></trkpt></trkseg>
            <trkseg><trkpt lat="2" lon="2"/><trkpt lat="2.1" lon="2.1"/></trkseg></trk></gpx>
            """
        let features = try FeatureList(reading: GPXReader(input: BufferedInput(string: gpx, name: "walk.gpx"))).features
        let times: JSONValue = [["2024-01-01T00:00:00Z", nil, "2024-01-01T00:02:00Z"], [nil, nil]]
        #expect(data(features.first)?["times"] == times)
        let back = try withTemporaryFolderPath { folder in
            let path = folder + "/out.\(format)"
            let output = try FeatureOutput(path: path)
            try output.commit { try copyFeatures(from: FeatureList(features), to: output.writer) }
            if format == "gpx" { #expect(gpxSchemaProblems(atPath: path) == nil) }
            return try readFeatures(path: path)
        }
        #expect(data(back.first)?["times"] == times)
    }

    /// A GPX track's per-point extensions (Garmin's heart rate and cadence, as Strava exports
    /// them) are per-position arrays beside the times, typed, null where a point has none; they
    /// used to be dropped without a word. KML keeps them (typed), and so does GPX output, in
    /// Garmin's TrackPointExtension (it dropped them with a warning: GPX → GPX lost heart rates).
    @Test func gpxPointExtensionsArePerPositionArrays() throws {
        let gpx = """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"
                 xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"><trk><name>run</name>
            <trkseg>
            <trkpt lat="-33.9" lon="-70.1"><time>2024-01-01T00:00:00Z</time><extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>100</gpxtpx:hr><gpxtpx:cad>80</gpxtpx:cad></gpxtpx:TrackPointExtension></extensions></trkpt>
            <trkpt lat="-33.8" lon="-70.2"><time>2024-01-01T00:01:00Z</time><extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>110</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>
            </trkseg>
            <trkseg><trkpt lat="-33.7" lon="-70.3"/><trkpt lat="-33.6" lon="-70.4"/></trkseg></trk></gpx>
            """
        let features = try FeatureList(reading: GPXReader(input: BufferedInput(string: gpx, name: "run.gpx"))).features
        #expect(data(features.first)?["hr"] == [[100, 110], [nil, nil]])
        #expect(data(features.first)?["cad"] == [[80, nil], [nil, nil]])
        #expect(data(features.first)?["times"] == [["2024-01-01T00:00:00Z", "2024-01-01T00:01:00Z"], [nil, nil]])
        let back = try readKML(text: try writeKML(features))
        #expect(data(back.first)?["hr"] == [[100, 110], [nil, nil]])

        nonisolated(unsafe) var warnings: [Diagnostic] = []
        var options = WriteOptions()
        options.diagnostics = { warnings.append($0) }
        let (written, gpxBack) = try roundTrip(features, format: "gpx", options: options)
        #expect(warnings.isEmpty, "\(warnings.map(\.message))")
        #expect(written.contains("<gpxtpx:hr>100</gpxtpx:hr>"), "\(written)")
        #expect(data(gpxBack.first)?["hr"] == [[100, 110], [nil, nil]])
        #expect(data(gpxBack.first)?["cad"] == [[80, nil], [nil, nil]])
        #expect(data(gpxBack.first)?["times"] == data(features.first)?["times"])
    }

    /// What TrackPointExtension cannot hold is left out with a warning: an array of another name
    /// (a power meter's), a heart rate past 255 or not a number; a route's arrays (a `rtept` has no
    /// TrackPointExtension). A heart rate between two (a clipped point's) is rounded; numbers
    /// keep their type: a temperature of 21.0 reads back a double.
    @Test func gpxTrackPointExtensionTakesOnlyWhatItsSchemaDoes() throws {
        let text = #"""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"name":"ride","coordinateProperties":{"hr":[119.6,300,"x"],"atemp":[21.0,-3.5,null],"power":[200,210,220]}},"geometry":{"type":"LineString","coordinates":[[-70.1,-33.9],[-70.2,-33.8],[-70.3,-33.7]]}},
            {"type":"Feature","properties":{"name":"route","_gpxType":"rte","coordinateProperties":{"hr":[1,2]}},"geometry":{"type":"LineString","coordinates":[[1,1],[2,2]]}}
            ]}
            """#
        nonisolated(unsafe) var warnings: [Diagnostic] = []
        var options = WriteOptions()
        options.diagnostics = { warnings.append($0) }
        let (_, back) = try roundTrip(try readAll(text: text).features, format: "gpx", options: options)
        let ride = back.first { $0.properties?["name"]?.stringValue == "ride" }
        #expect(data(ride)?["hr"] == [120, nil, nil])
        #expect(data(ride)?["atemp"] == [21.0, -3.5, nil])
        #expect(data(ride)?["power"] == nil)
        #expect(warnings.contains { $0.message.contains("'hr', 'power'") }, "\(warnings.map(\.message))")
        #expect(warnings.contains { $0.message.contains("2 track point values") && $0.message.contains("'300'") }, "\(warnings.map(\.message))")
    }

    /// Google Earth's track arrays (`heartrate`, `cadence`: KML's gx:SimpleArrayData, as its own
    /// sample names them) go into GPX as TrackPointExtension's `hr` and `cad`, read back by those names.
    @Test func googleEarthsHeartRatesGoIntoGPX() throws {
        let (features, _) = try read(kml: kml("""
            <Placemark><gx:Track>
              <when>2024-05-04T07:00:00Z</when><when>2024-05-04T07:01:00Z</when>
              <gx:coord>-70.1 -33.9</gx:coord><gx:coord>-70.2 -33.8</gx:coord>
              <ExtendedData><SchemaData schemaUrl="#s">
                <gx:SimpleArrayData name="heartrate"><gx:value>120</gx:value><gx:value>125</gx:value></gx:SimpleArrayData>
                <gx:SimpleArrayData name="cadence"><gx:value>80</gx:value><gx:value>82</gx:value></gx:SimpleArrayData>
                <gx:SimpleArrayData name="power"><gx:value>200</gx:value><gx:value>210</gx:value></gx:SimpleArrayData>
              </SchemaData></ExtendedData>
            </gx:Track></Placemark>
            """))
        nonisolated(unsafe) var warnings: [Diagnostic] = []
        var options = WriteOptions()
        options.diagnostics = { warnings.append($0) }
        let (_, back) = try roundTrip(features, format: "gpx", options: options)
        #expect(data(back.first)?["hr"] == [120, 125])
        #expect(data(back.first)?["cad"] == [80, 82])
        #expect(warnings.count == 1 && warnings[0].message.contains("'power'") && !warnings[0].message.contains("heartrate"), "\(warnings.map(\.message))")
    }

    /// gx:SimpleArrayData values of a MultiTrack: each track writes its own line's values.
    @Test func aMultiTrackWritesEachLinesArrays() throws {
        let feature = Feature(geometry: .multiLineString(MultiLineString([
            [Position(longitude: 0, latitude: 0), Position(longitude: 1, latitude: 1)],
            [Position(longitude: 2, latitude: 2), Position(longitude: 3, latitude: 3), Position(longitude: 4, latitude: 4)],
        ])), properties: [PositionData.member: .object(["hr": [["1", "2"], ["3", "4", "5"]]])])
        let back = try readKML(text: try writeKML([feature]))
        #expect(data(back.first) == ["hr": [["1", "2"], ["3", "4", "5"]]])
    }
}

/// GPX's schema takes only some text where properties go: every GPX written is checked against it
/// (`roundTrip` runs xmllint), here with the values that broke it.
@Suite struct GPXSchemaTests {
    @Test func oddValuesStillGiveValidGPX() throws {
        let text = #"""
            {"type":"FeatureCollection","name":"a\u0001b <&>","features":[
            {"type":"Feature","properties":{"name":"x\u0002y","time":12,"link":"http://a b/%zz","sym":5,"number":-3},"geometry":{"type":"Point","coordinates":[180,-90,1e300]}},
            {"type":"Feature","properties":{"name":"r","number":7,"_gpxType":"rte","link":"::::","coordinateProperties":{"times":["", "2024-05-04"]}},"geometry":{"type":"LineString","coordinates":[[1.2345678901234567e-5,-0.012345678901234567],[3,4]]}},
            {"type":"Feature","properties":{"name":"empty"},"geometry":{"type":"LineString","coordinates":[]}},
            {"type":"Feature","properties":{"coordinateProperties":{"times":[["2024-01-01T00:00:00Z","x"],["2024-01-01T00:00:01Z"]]}},"geometry":{"type":"GeometryCollection","geometries":[{"type":"LineString","coordinates":[[1,1],[2,2]]},{"type":"Point","coordinates":[3,3]}]}}
            ]}
            """#
        nonisolated(unsafe) var warnings: [Diagnostic] = []
        var options = WriteOptions()
        options.diagnostics = { warnings.append($0) }
        let (gpx, _) = try roundTrip(try readAll(text: text).features, format: "gpx", options: options)
        #expect(gpx.contains(#"<link href="http://a%20b/%25zz"/>"#) && gpx.contains(#"<link href="%3A%3A%3A%3A"/>"#))
        #expect(gpx.contains(#"<wpt lat="3.0" lon="3.0">"#) && gpx.contains("<time>2024-01-01T00:00:01Z</time>"))
        #expect(!gpx.contains("<time></time>") && !gpx.contains("<ele>1000"))
        #expect(warnings.count == 2)
    }
}
