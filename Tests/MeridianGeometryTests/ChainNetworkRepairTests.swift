import Foundation
import Testing
@testable import MeridianGeometry
import MeridianTestSupport

/// `ChainNetwork.repair` tests, after its first pass, only what changed (pairs with a new
/// segment, stretches against moved probes): it must keep exactly the positions that testing
/// every pair and every stretch on every pass keeps, which is what it did before.
@Suite struct ChainNetworkRepairTests {
    /// Every pass in full: every kept segment against every other, every stretch against every probe.
    static func repairTestingEverything(_ network: inout ChainNetwork) -> Int {
        var passes = 0
        while true {
            passes += 1
            var segments = network.keptSegments()
            var refine = Set<ChainNetwork.SegmentKey>()
            func flag(_ s: ChainNetwork.Segment) {
                if s.b - s.a > 1 { refine.insert(ChainNetwork.SegmentKey(chain: s.chain, a: s.a)) }
            }
            _ = BoxSweep.overlappingPairs(&segments) { _, s, t in
                if network.conflict(s, t) {
                    flag(s)
                    flag(t)
                }
                return true
            }
            for s in network.sweepingSegments(segments, probes: network.probes()) { flag(s) }
            if refine.isEmpty { return passes }
            for key in refine {
                let b = network.chains[key.chain].keep[(key.a + 1)...].firstIndex(of: true)!
                if let f = network.chains[key.chain].farthest(from: key.a, to: b) { network.chains[key.chain].mark(f.index) }
            }
        }
    }

    @Test(arguments: [20_000.0, 200_000.0, 2_000_000.0])
    func incrementalPassesKeepWhatFullPassesKeep(tolerance: Double) throws {
        var network = ChainNetwork()
        for feature in try NaturalEarth.features(NaturalEarth.sample) {
            let polygons: [Polygon]
            switch feature.geometry {
            case .polygon(let polygon)?: polygons = [polygon]
            case .multiPolygon(let multi)?: polygons = multi.polygons
            default: continue
            }
            for polygon in polygons {
                for ring in polygon.rings where ring.count >= 4 {
                    network.rings.append([network.chains.count])
                    network.chains.append(ChainNetwork.Chain(ring[...]))
                }
            }
        }
        #expect(network.chains.count > 50)
        network.simplify(tolerance: tolerance, method: .douglasPeucker)
        _ = network.restoreCollapsedRings()
        var reference = network
        let passes = Self.repairTestingEverything(&reference)
        network.repair()
        #expect(passes > 1, "the repair had nothing to do at \(tolerance)")
        #expect(network.chains.map(\.keep) == reference.chains.map(\.keep))
    }

    /// Random networks (noisy rings close enough together for simplifying to make them cross,
    /// some crossing already): the repair, which sweeps only the pairs with a new segment and
    /// a segment that has positions to put back, keeps what testing everything keeps.
    @Test func randomNetworksKeepWhatFullPassesKeep() {
        var random = SplitMix64(seed: 7)
        func uniform() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
        var repaired = 0
        for round in 0..<150 {
            var network = ChainNetwork()
            for _ in 0..<(1 + random.below(5)) {
                let centre = (longitude: 10 + uniform(), latitude: 45 + uniform())
                let radius = 0.05 + 0.5 * uniform(), count = 8 + random.below(150)
                var ring = (0..<count).map { i -> Position in
                    let angle = 2 * Double.pi * Double(i) / Double(count)
                    let r = radius * (0.6 + 0.4 * uniform())
                    return Position(longitude: centre.longitude + r * cos(angle), latitude: centre.latitude + r * sin(angle))
                }
                ring.append(ring[0])
                network.rings.append([network.chains.count])
                network.chains.append(ChainNetwork.Chain(ring[...]))
            }
            network.simplify(tolerance: 2_000 + 60_000 * uniform(), method: .douglasPeucker)
            _ = network.restoreCollapsedRings()
            var reference = network
            if Self.repairTestingEverything(&reference) > 1 { repaired += 1 }
            network.repair()
            #expect(network.chains.map(\.keep) == reference.chains.map(\.keep), "round \(round)")
        }
        #expect(repaired > 30, "the repair had little to do")
    }
}
