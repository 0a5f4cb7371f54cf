/// Rings and lines cut into arcs at their junctions, each shared stretch stored once, as
/// TopoJSON and mapshaper do: two countries' common border becomes one arc, simplified once,
/// so both keep exactly the same positions along it.
///
/// A junction is a position where paths meet with different neighbours (where a border
/// branches), or a line's end. A ring without junctions is one closed arc, started at its
/// lowest position so that an enclave and the hole around it are recognised as the same arc.
struct ArcTopology {
    struct Piece {
        var arc: Int
        var reversed: Bool
    }

    /// Each arc's positions, from one junction to the next (or around a closed ring).
    private(set) var arcs: [[Position]] = []
    /// Each input path as arcs end to end.
    private(set) var paths: [[Piece]] = []

    /// A position's identity: its longitude and latitude, bit for bit.
    struct Key: Hashable, Comparable {
        var x: UInt64
        var y: UInt64
        init(_ p: Position) {
            x = p.longitude.bitPattern
            y = p.latitude.bitPattern
        }
        static func < (l: Key, r: Key) -> Bool { (l.x, l.y) < (r.x, r.y) }
    }

    /// - Parameters:
    ///   - paths: rings (closed: the last position repeats the first) and lines.
    ///   - isRing: which paths are rings.
    ///   - shareArcs: false keeps every path whole, as one arc of its own.
    init(paths input: [[Position]], isRing: [Bool], shareArcs: Bool) {
        guard shareArcs else {
            arcs = input
            paths = input.indices.map { [Piece(arc: $0, reversed: false)] }
            return
        }
        let junctions = Self.junctions(input, isRing: isRing)
        var arcIndex: [[Key]: Int] = [:]
        func piece(_ positions: [Position]) -> Piece {
            let keys = positions.map(Key.init)
            let reversedKeys = Array(keys.reversed())
            if let index = arcIndex[keys] { return Piece(arc: index, reversed: false) }
            if let index = arcIndex[reversedKeys] { return Piece(arc: index, reversed: true) }
            arcIndex[keys] = arcs.count
            arcs.append(positions)
            return Piece(arc: arcs.count - 1, reversed: false)
        }
        for (path, ring) in zip(input, isRing) {
            guard ring, path.count >= 4 else {
                paths.append(ring || path.count < 2 ? [piece(path)] : Self.cut(path, at: junctions).map(piece))
                continue
            }
            let open = Array(path.dropLast())
            if let start = open.firstIndex(where: { junctions.contains(Key($0)) }) {
                // Start at a junction; the ring's last arc comes back to it.
                let rotated = Array(open[start...] + open[..<start]) + [open[start]]
                paths.append(Self.cut(rotated, at: junctions).map(piece))
            } else {
                paths.append([piece(Self.canonicalRing(open))])
            }
        }
    }

    /// Positions visited twice with different neighbours, and the ends of lines.
    private static func junctions(_ paths: [[Position]], isRing: [Bool]) -> Set<Key> {
        struct Neighbours: Equatable {
            var low: Key
            var high: Key
            init(_ a: Key, _ b: Key) { (low, high) = a < b ? (a, b) : (b, a) }
        }
        var seen: [Key: Neighbours] = [:]
        var junctions = Set<Key>()
        for (path, ring) in zip(paths, isRing) {
            let open = ring ? Array(path.dropLast()) : path
            let m = open.count
            guard m >= 2 else { continue }
            for i in 0..<m {
                let key = Key(open[i])
                if !ring && (i == 0 || i == m - 1) {
                    junctions.insert(key)
                    continue
                }
                let neighbours = Neighbours(Key(open[(i + m - 1) % m]), Key(open[(i + 1) % m]))
                if let earlier = seen[key] {
                    if earlier != neighbours { junctions.insert(key) }
                } else {
                    seen[key] = neighbours
                }
            }
        }
        return junctions
    }

    /// A path cut at every junction strictly inside it (its ends stay its ends).
    private static func cut(_ path: [Position], at junctions: Set<Key>) -> [[Position]] {
        var pieces: [[Position]] = []
        var start = 0
        for i in 1..<path.count where i == path.count - 1 || junctions.contains(Key(path[i])) {
            pieces.append(Array(path[start...i]))
            start = i
        }
        return pieces
    }

    /// A junction-free ring started at its lowest position and run towards the lower of that
    /// position's neighbours: the same ring gives the same arc, whichever way it was written.
    private static func canonicalRing(_ open: [Position]) -> [Position] {
        let keys = open.map(Key.init)
        let start = keys.indices.min { keys[$0] < keys[$1] }!
        let m = open.count
        let forward = keys[(start + 1) % m] <= keys[(start + m - 1) % m]
        let order = (0..<m).map { forward ? (start + $0) % m : (start - $0 + m) % m }
        return order.map { open[$0] } + [open[start]]
    }

    /// A path rebuilt from its arcs as simplified (`kept` gives each arc's positions).
    func path(_ index: Int, kept: [[Position]]) -> [Position] {
        var out: [Position] = []
        for piece in paths[index] {
            let positions = piece.reversed ? kept[piece.arc].reversed() : kept[piece.arc]
            out.append(contentsOf: out.isEmpty ? positions[...] : positions.dropFirst())
        }
        return out
    }
}
