/// "Did you mean …?" for what people mistype: subcommands, options, option values and format
/// names all go through `closest(to:among:)`, so they agree on what counts as close.
public enum Suggestions {
    /// The candidate nearest to `word` (ignoring case) when it is near enough to be what was
    /// meant: one edit away for words of up to five characters, two up to eight, three beyond
    /// ("jpg" → "jpeg", "geojsn" → "geojson", "zoom-levle" → "zoom-level"). The first of equally
    /// near candidates wins; nil when none is near, or when `word` is one of them.
    public static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        let wanted = word.lowercased()
        let limit = wanted.count <= 5 ? 1 : wanted.count <= 8 ? 2 : 3
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(wanted, candidate.lowercased())
            if distance == 0 { return nil }
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// The optimal string alignment distance: each inserted, deleted or replaced character, and
    /// each swap of two neighbours, counts one ("levle" is one step from "level", as people
    /// count, where Levenshtein's distance counts two).
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        // Three rows of the table: two rows back are needed for swaps.
        var twoBack = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], twoBack[j - 2] + 1)
                }
            }
            (twoBack, previous, current) = (previous, current, twoBack)
        }
        return previous[b.count]
    }
}
