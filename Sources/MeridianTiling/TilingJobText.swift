import Foundation
import MeridianRaster

/// A tiling job's plan, progress and summary as lines of text, for a program to print.
public enum TilingJobText {
    /// A raster run's plan as a table (or `json`).
    /// - Parameters:
    ///   - plan: The plan.
    ///   - json: Whether to write it as JSON.
    public static func plan(_ plan: TilingPlan, json: Bool) throws -> String {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(plan), as: UTF8.self) + "\n"
        }
        func levels(_ zooms: [Int]) -> String {
            guard let first = zooms.first else { return "never" }
            // Runs of consecutive levels: 12-15,18.
            var runs: [String] = [], start = first, previous = first
            for zoom in zooms.dropFirst() + [Int.max] {
                if zoom != previous + 1 { runs.append(start == previous ? "\(start)" : "\(start)-\(previous)"); start = zoom }
                previous = zoom
            }
            return runs.joined(separator: ",")
        }
        let nameWidth = max(5, plan.charts.map(\.name.count).max() ?? 0)
        var lines = ["\(plan.charts.count) chart\(plan.charts.count == 1 ? "" : "s"), zoom \(plan.zooms[0])-\(plan.zooms[1]), quilted by \(plan.quilt)" + (plan.overzoom.map { ", each shown at most \($0) level\($0 == 1 ? "" : "s") deeper than its native zoom" } ?? ""), ""]
        lines.append(pad("chart", nameWidth) + "  scale      native  alone  on top  bounds (west, south, east, north)")
        for chart in plan.charts {
            let scale = chart.scale.map { "1:\($0)" } ?? "-"
            let bounds = chart.bounds.map { String(format: "%.5f", $0) }.joined(separator: ", ")
            lines.append(pad(chart.name, nameWidth) + "  " + pad(scale, 9) + "  " + pad("\(chart.nativeZoom)", 6) + "  "
                         + pad("\(chart.zoomsAlone[0])-\(chart.zoomsAlone[1])", 5) + "  " + pad(levels(chart.onTop), 6) + "  " + bounds)
        }
        lines += ["", "zoom  tiles"]
        for zoom in plan.zooms[0]...plan.zooms[1] { lines.append(pad("\(zoom)", 4) + "  " + "\(plan.tilesPerZoom["\(zoom)"] ?? 0)") }
        let minutes = Int(plan.estimatedSeconds.rounded(.up)) / 60, seconds = Int(plan.estimatedSeconds.rounded(.up)) % 60
        let megabytes = Double(plan.estimatedBytes) / 1_000_000
        lines += ["", "\(plan.tiles) tiles at most; about \(minutes):\(String(format: "%02d", seconds)) with \(plan.jobs) thread\(plan.jobs == 1 ? "" : "s") "
                  + "and \(String(format: "%.1f", megabytes)) MB, estimated from \(plan.sampleTiles) sample tiles"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A level-by-level run's plan: the tiles at most at each level, as a table (or `json`).
    /// - Parameters:
    ///   - plan: The plan.
    ///   - json: Whether to write it as JSON.
    public static func plan(_ plan: LevelTilingPlan, json: Bool) throws -> String {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            return String(decoding: try encoder.encode(plan), as: UTF8.self) + "\n"
        }
        guard let low = plan.zooms.first, let high = plan.zooms.last else { return "" }
        var lines = ["zoom  tiles"]
        for zoom in low...high { lines.append(pad("\(zoom)", 4) + "  \(plan.tilesPerZoom["\(zoom)"] ?? 0)") }
        lines += ["", "\(plan.tiles) tiles at most, over the data's bounds, zoom \(low)-\(high)"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `zoom 14` or `zoom 14-18` (never `zoom 14-14`).
    private static func levels(_ range: ClosedRange<Int>) -> String {
        range.count == 1 ? "zoom \(range.lowerBound)" : "zoom \(range.lowerBound)-\(range.upperBound)"
    }

    /// `1 tile` or `25 tiles` (a run of one tile said `1 tiles`).
    private static func tiles(_ count: Int) -> String { "\(count) tile\(count == 1 ? "" : "s")" }

    /// `456 tiles/s`, or `0.3 tiles/s` when fewer than ten a second (a slow run said `0 tiles/s`).
    static func tileRate(_ rate: Double) -> String {
        String(format: rate < 9.95 ? "%.1f tiles/s" : "%.0f tiles/s", rate)
    }

    private static func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text : text + String(repeating: " ", count: width - text.count) }

    /// `out/: 1414 tiles, zoom 14-18, 3.1 s (456 tiles/s)`; after resuming, what a user can
    /// check: tiles written now and kept, whose sum a clean run writes.
    public static func summary(_ summary: TilingSummary, output: String, resumed: Bool) -> String {
        let rate = summary.seconds > 0 ? Double(summary.tileCount) / summary.seconds : 0
        let held = summary.zoomsWithTiles ?? summary.zooms
        let zooms = levels(held)
        let time = String(format: "%.1f s", summary.seconds) + " (\(tileRate(rate)))"
        guard resumed else { return "\(output): \(tiles(summary.tileCount)), \(zooms), \(time)" }
        return "\(output): \(tiles(summary.totalTiles)) in all, as a clean run writes: \(summary.tileCount) written now, "
            + "\(summary.kept) kept from the interrupted run; \(zooms), \(time)"
    }

    /// What a level-by-level run says when done: the tiles written (and kept, resumed; or a
    /// shard's, named `shard` as given, or that the shards were joined), `seconds` after it started.
    public static func summary(_ summary: LevelTilingSummary, _ details: LevelTilingDetails, request: TilingJobRequest, shard: String?, seconds: Double) -> String {
        let output = request.output
        let time = String(format: "%.1f s", seconds), zooms = levels(summary.zooms)
        if request.finish { return "\(output): shards joined: \(tiles(summary.kept)) from the shards; \(zooms), \(time)" }
        if let shard { return "\(output): shard \(shard): \(tiles(summary.written)) written (\(summary.made) made), \(time)" }
        let count = summary.written + summary.kept
        let kept = request.resume ? " (\(summary.written) written now, \(summary.kept) kept from the interrupted run)" : ""
        let what: String, extra: String
        switch details.kind {
        case .drawnVectors, .rasters:
            what = "\(details.format.rawValue.uppercased()) tile"
            extra = " of \(details.inputCount) input\(details.inputCount == 1 ? "" : "s")"
        case .vectorTiles:
            what = "vector tile"
            let repaired = details.cut.polygonsRepaired == 0 ? "" : ", \(details.cut.polygonsRepaired) polygons made valid after snapping"
            let page = details.wroteViewer ? ", index.html shows them" : ""
            extra = ", \(details.layerCount) layer\(details.layerCount == 1 ? "" : "s")\(repaired)\(page)"
        }
        return "\(output): \(count) \(what)\(count == 1 ? "" : "s")\(kept)\(extra), \(zooms), \(time)"
    }

    /// `out/doc.kml: KML super-overlay, 42 tile KML files, 1 linked from doc.kml`: what a KML
    /// super-overlay written over the folder `output` counts.
    /// - Parameters:
    ///   - written: The KML files written.
    ///   - output: The tile folder.
    public static func kml(_ written: KMLSuperOverlay.Written, output: String) -> String {
        // `out/` as typed names the folder: its doc.kml is `out/doc.kml`, not `out//doc.kml`.
        var folder = Substring(output)
        while folder.count > 1, folder.hasSuffix("/") { folder = folder.dropLast() }
        let path = folder == "/" ? "/doc.kml" : "\(folder)/doc.kml"
        return "\(path): KML super-overlay, \(written.tileFiles) tile KML files, \(written.roots) linked from doc.kml"
            + (written.removedFiles > 0 ? "; \(written.removedFiles) tile KML file\(written.removedFiles == 1 ? "" : "s") of tiles no longer there removed" : "")
    }

    /// Why the tile set holds fewer zoom levels than were asked for, if it does.
    public static func zoomShortfall(_ summary: TilingSummary) -> String? {
        guard let held = summary.zoomsWithTiles else {
            return "no tiles: the raster shows at none of \(levels(summary.zooms)) (all transparent)"
        }
        guard held != summary.zooms else { return nil }
        var missing: [String] = []
        if held.lowerBound > summary.zooms.lowerBound { missing.append(levels(summary.zooms.lowerBound...held.lowerBound - 1)) }
        if held.upperBound < summary.zooms.upperBound { missing.append(levels(held.upperBound + 1...summary.zooms.upperBound)) }
        return "\(missing.joined(separator: " and ")) hold no tiles (there the raster covers less than 1/255 of a pixel): "
            + "the tile set and its metadata say \(levels(held))"
    }

    /// `412/1546 tiles (27%), 96 tiles/s, ETA 0:12`
    /// - Parameters:
    ///   - done: Tiles made so far.
    ///   - total: Tiles the run makes at most.
    ///   - seconds: Time since the run started.
    public static func progress(done: Int, total: Int, seconds: Double) -> String {
        let rate = seconds > 0 ? Double(done) / seconds : 0
        var text = "\(done)/\(total) tiles (\(total > 0 ? done * 100 / total : 100)%), \(tileRate(rate))"
        if rate > 0 {
            let left = Int(Double(total - done) / rate)
            text += String(format: ", ETA %d:%02d", left / 60, left % 60)
        }
        return text
    }
}
