import Foundation
import MeridianGeometry
import Testing
@testable import MeridianTiles

/// The library's pieces that choose what goes into a vector tile (issue 32); the command line's
/// behaviour against tippecanoe's is in MeridianCLITests' TileFeatureSelectionCommandTests.
@Suite struct TileFeatureSelectionTests {
    @Test func attributeFilterKeepsWhatItIsAskedTo() {
        #expect(AttributeFilter.all.keeps("a"))
        #expect(AttributeFilter(included: ["a"]).keeps("a") && !AttributeFilter(included: ["a"]).keeps("b"))
        #expect(!AttributeFilter(excluded: ["a"]).keeps("a") && AttributeFilter(excluded: ["a"]).keeps("b"))
        #expect(!AttributeFilter(excludesAll: true).keeps("a"))
        // tile's and tile-join's options give one filter: -X -y a keeps a alone; -y decides
        // alone, as tippecanoe's -y does (-x then changes nothing); -y with no name keeps nothing.
        let options = AttributeFilter(include: ["a"], exclude: [], excludeAll: true)
        #expect(options.keeps("a") && !options.keeps("b"))
        #expect(AttributeFilter(included: ["a"], excluded: ["a"]).keeps("a"))
        #expect(!AttributeFilter(included: []).keeps("a"))
        #expect(AttributeFilter(include: [], exclude: ["b"], excludeAll: false) == AttributeFilter(excluded: ["b"]))
    }

    /// The member's numbers and names as tippecanoe reads them; anything else asks nothing.
    @Test func tippecanoeMemberIsRead() {
        let request = FeatureTilingRequest(.object(["minzoom": .integer(3), "maxzoom": .double(9.7), "layer": .string("roads")]))
        #expect(request.minimumZoom == 3 && request.maximumZoom == 9 && request.layer == "roads")
        let odd = FeatureTilingRequest(.object(["minzoom": .string("3"), "maxzoom": .integer(-4), "layer": .integer(2)]))
        #expect(odd.minimumZoom == nil && odd.maximumZoom == 0 && odd.layer == nil)
        #expect(FeatureTilingRequest(.integer(1)) == FeatureTilingRequest(.null))
    }

    /// About 1/rate^(base - zoom) of the points show at each zoom, and a point shown at a zoom shows at every deeper one.
    @Test func pointsThinByTheRateAndNest() {
        let thinning = PointThinning(dropRate: 2.5, baseZoom: 6)
        var shown = [Int](repeating: 0, count: 7)
        for i in 0..<20_000 {
            let rank = withUnsafeBytes(of: UInt64(i)) { PointThinning.rank($0, [Position(longitude: 1, latitude: 2)]) }
            let zooms = (0...6).map { thinning.shows(rank: rank, at: $0) }
            #expect(zip(zooms, zooms.dropFirst()).allSatisfy { !$0 || $1 })
            for (zoom, shows) in zooms.enumerated() where shows { shown[zoom] += 1 }
        }
        #expect(shown[6] == 20_000)
        for zoom in 0..<6 {
            let expected = 20_000 / pow(2.5, Double(6 - zoom))
            #expect(abs(Double(shown[zoom]) - expected) <= max(8, expected * 0.1), "zoom \(zoom): \(shown[zoom]) for \(expected)")
        }
    }

    func points(_ count: Int) -> VectorTile {
        let features = (0..<count).map { (i: Int) -> VectorTile.Feature in
            let x = Int32(i % 64) * 60, y = Int32(i / 64) * 60
            return VectorTile.Feature(id: UInt64(i), type: .point, parts: [[SIMD2<Int32>(x, y)]], properties: [("i", VectorTile.Value.uint(UInt64(i)))])
        }
        return VectorTile(layers: [VectorTile.Layer(name: "p", features: features)])
    }

    /// Every strategy brings the tile under the limits; merging keeps every position.
    @Test(arguments: OverLimitStrategy.allCases)
    func everyStrategyFits(strategy: OverLimitStrategy) throws {
        let budget = TileFeatureBudget(limits: TileLimits(maximumBytes: 100_000, maximumFeatures: 40), strategy: strategy)
        let fitted = budget.fit(points(1_000))
        let tile = try VectorTile(decoding: fitted.bytes)
        #expect(tile.featureCount <= 40 && fitted.dropped + fitted.coalesced + tile.featureCount == 1_000)
        let positions = tile.layers.flatMap(\.features).reduce(0) { $0 + $1.parts.reduce(0) { $0 + $1.count } }
        #expect([.coalesceDensest, .coalesceSmallest].contains(strategy) ? positions == 1_000 : positions <= 40)
    }

    /// A tile that nothing brings under the limits loses everything, and is not written.
    @Test func aTileThatCannotFitHoldsNothing() {
        for strategy in OverLimitStrategy.allCases {
            let fitted = TileFeatureBudget(limits: TileLimits(maximumBytes: 3, maximumFeatures: 10), strategy: strategy).fit(points(5))
            #expect(fitted.bytes.isEmpty && fitted.dropped == 5, "\(strategy)")
        }
    }

    /// Attributes combined over a cluster, and counts abbreviated as tippecanoe writes them.
    @Test func clustersCombineAttributes() {
        let values: [VectorTile.Value] = [.uint(3), .double(1.5), .string("x"), .sint(-2)]
        #expect(PointClustering.combine(values, .sum) == .double(2.5) && PointClustering.combine(values, .max) == .double(3))
        #expect(PointClustering.combine(values, .min) == .double(-2) && PointClustering.combine(values, .mean) == .double(2.5 / 3))
        #expect(PointClustering.combine(values, .comma) == .string("3,1.5,x,-2") && PointClustering.combine(values, .concat) == .string("31.5x-2"))
        #expect(PointClustering.combine([.string("a")], .sum) == nil)
        #expect([999, 1_234, 15_600, 2_500_000].map(PointClustering.abbreviated) == ["999", "1.2k", "15k", "2.5M"])
        let tile = VectorTile(layers: [VectorTile.Layer(name: "p", features: [
            VectorTile.Feature(type: .point, parts: [[SIMD2<Int32>(100, 100)]], properties: [("n", VectorTile.Value.uint(1))]),
            VectorTile.Feature(type: .point, parts: [[SIMD2<Int32>(110, 100)]], properties: [("n", VectorTile.Value.uint(2))]),
            VectorTile.Feature(type: .point, parts: [[SIMD2<Int32>(3000, 3000)]], properties: [("n", VectorTile.Value.uint(4))]),
        ])])
        let clustered = PointClustering(distance: 1, accumulations: ["n": .sum]).clustered(tile).layers[0].features
        #expect(clustered.count == 2 && clustered[0].parts == [[SIMD2<Int32>(105, 100)]])
        #expect(clustered[0].properties.contains { $0.key == "n" && $0.value == .double(3) } && clustered[0].properties.contains { $0.key == "point_count" && $0.value == .uint(2) })
        #expect(clustered[1].properties.count == 1)
    }
}
