# Shared by the benchmark scripts: set-up, timing and summary helpers. Source it; do not run it.
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/bootstrap
command -v ogr2ogr >/dev/null && [ -x /usr/bin/time ] || {
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get install -y -qq gdal-bin time >/dev/null
}
# MERIDIAN_BINARY runs a script against a build already made (a debug build, to try a script
# on a small case without a release build: its timings mean nothing).
if [ -n "${MERIDIAN_BINARY:-}" ]; then
    meridian="$MERIDIAN_BINARY"
else
    swift build -c release --static-swift-stdlib --product meridian >&2
    swift build -c release --static-swift-stdlib --product meridian-draw >&2  # SVG and PNG outputs are drawn by it
    meridian="$PWD/.build/release/meridian"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# One timed run: prints "seconds peak-KiB" (Benchmarks/timed.py: the command's own wall time,
# spawn to reap, and its peak RSS; its standard output is discarded).
measure() {
    python3 Benchmarks/timed.py "$work" "$@" || { cat "$work/stderr" >&2; exit 1; }
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
calc() { awk "BEGIN { print $1 }"; }

# compare RUNS LABEL -- MERIDIAN-COMMAND… -- OTHER-COMMAND…
# (the other tool is named by $other and $other_version, ogr2ogr by default)
# Runs both commands RUNS times, alternating, and prints medians, peak RSS and the ratios.
compare() {
    local runs="$1" label="$2"; shift 3
    local mine=() theirs=()
    while [ "$1" != "--" ]; do mine+=("$1"); shift; done; shift
    theirs=("$@")
    : > "$work/a.txt"; : > "$work/b.txt"
    # Both tools write a new file each run: the last run's output is removed outside the timing
    # (replacing an existing 20 MB file costs its deletion, about 5 ms, inside the rename).
    for _ in $(seq "$runs"); do
        rm -f "$work"/out.* "$work"/meridian.*
        measure "${mine[@]}" >> "$work/a.txt"
        rm -f "$work"/ogr-out.*
        measure "${theirs[@]}" >> "$work/b.txt"
    done
    m_time=$(cut -d' ' -f1 "$work/a.txt" | median); m_rss=$(cut -d' ' -f2 "$work/a.txt" | sort -n | tail -1)
    o_time=$(cut -d' ' -f1 "$work/b.txt" | median); o_rss=$(cut -d' ' -f2 "$work/b.txt" | sort -n | tail -1)
    # CPU seconds (user + system): on a shared, loaded machine the steadier measure of the two.
    m_cpu=$(cut -d' ' -f3 "$work/a.txt" | median); o_cpu=$(cut -d' ' -f3 "$work/b.txt" | median)
    echo "$label, $runs runs each, alternating (load $(cut -d' ' -f1 /proc/loadavg))"
    printf "  %-9s median %7.3f s   CPU %7.2f s   peak RSS %6.1f MB\n" meridian "$m_time" "$m_cpu" "$(calc "$m_rss / 1024")"
    printf "  %-9s median %7.3f s   CPU %7.2f s   peak RSS %6.1f MB   (%s)\n" "${other:-ogr2ogr}" "$o_time" "$o_cpu" "$(calc "$o_rss / 1024")" "${other_version:-$(ogr2ogr --version)}"
    if [ "$(calc "($o_time >= $m_time) ? 1 : 0")" -eq 1 ]; then
        printf "  meridian is %.1fx faster and uses %.1fx less memory\n" "$(calc "$o_time / $m_time")" "$(calc "$o_rss / $m_rss")"
    else
        printf "  meridian takes %.2fx the time of %s and uses %.1fx less memory\n" "$(calc "$m_time / $o_time")" "${other:-ogr2ogr}" "$(calc "$o_rss / $m_rss")"
    fi
}

# Peak RSS of one meridian run on a big input, beside the small input's: memory must not grow.
memory_check() {
    local label="$1"; shift
    local result; result=$(measure "$@")
    printf "  %s: meridian %.2f s, peak RSS %.1f MB (small input: %.1f MB)\n" "$label" \
        "$(echo "$result" | cut -d' ' -f1)" "$(calc "$(echo "$result" | cut -d' ' -f2) / 1024")" "$(calc "$m_rss / 1024")"
}
