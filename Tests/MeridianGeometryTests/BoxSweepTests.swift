import Testing
@testable import MeridianGeometry
import MeridianTestSupport

/// `BoxSweep.overlappingPairs(_:involving:_:)` visits only the pairs with a picked box: it must
/// find exactly the pairs of the plain sweep that have one, each once, first and second in the
/// same order.
@Suite struct BoxSweepTests {
    struct Box: SweptBox, Equatable {
        var id: Int
        var minX: Double, maxX: Double, minY: Double, maxY: Double
        var picked: Bool
    }

    struct Pair: Hashable {
        var first: Int, second: Int
    }

    @Test(arguments: [0.0, 0.05, 0.5, 1.0])
    func picksThePairsThePlainSweepHasWithAPickedBox(share: Double) {
        var random = SplitMix64(seed: 32)
        for round in 0..<200 {
            // Few distinct west edges, so that many boxes tie and the order of ties matters.
            let count = 1 + random.below(60)
            var boxes = (0..<count).map { id -> Box in
                let x = Double(random.below(20)), y = Double(random.below(20))
                return Box(id: id, minX: x, maxX: x + Double(random.below(6)), minY: y, maxY: y + Double(random.below(6)),
                           picked: Double(random.below(1000)) < share * 1000)
            }
            var plainBoxes = boxes
            var plain: [Pair] = []
            _ = BoxSweep.overlappingPairs(&plainBoxes) { _, s, t in
                if s.picked || t.picked { plain.append(Pair(first: s.id, second: t.id)) }
                return true
            }
            var picked: [Pair] = []
            _ = BoxSweep.overlappingPairs(&boxes, involving: \.picked) { _, s, t in
                picked.append(Pair(first: s.id, second: t.id))
                return true
            }
            #expect(boxes == plainBoxes, "round \(round): sorted differently")
            #expect(Set(picked) == Set(plain), "round \(round)")
            #expect(picked.count == plain.count, "round \(round): a pair seen twice")
        }
    }

    @Test func stopsWhenTheBodySaysSo() {
        var boxes = (0..<10).map { Box(id: $0, minX: 0, maxX: 1, minY: 0, maxY: 1, picked: $0 % 2 == 0) }
        var calls = 0
        let finished = BoxSweep.overlappingPairs(&boxes, involving: \.picked) { _, _, _ in
            calls += 1
            return calls < 3
        }
        #expect(!finished && calls == 3)
    }
}
