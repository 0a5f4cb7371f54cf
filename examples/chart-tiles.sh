#!/usr/bin/env bash
# A nautical chart on a map, end to end: a NOAA BSB/KAP chart (paletted, georeferenced by control
# points, with a collar) becomes XYZ tiles for MapKit or any web map, an MBTiles file, and an
# offline Leaflet page to look at the result. Then a plain scanned image placed by three control
# points. Usage: examples/chart-tiles.sh [CHART.KAP] [OUTPUT-FOLDER]
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/bootstrap
for product in meridian meridian-gdal; do swift build -c release --product "$product" >&2; done  # one product a build: given several, SwiftPM builds only the last
meridian=.build/release/meridian
chart="${1:-Tests/Fixtures/raster/19347_2.KAP}"
out="${2:-$(mktemp -d)}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

echo "== the chart, as GDAL sees it"
gdalinfo "$chart" | grep -E "^Driver|^Size|GCP Projection|Color Table" || true

echo
echo "== meridian tile: palette expanded, collar cut along the chart's outline, zoom range from its resolution"
"$meridian" tile "$chart" "$out/chart" --viewer
ls "$out/chart"
echo "URL template for MKTileOverlay: file://$out/chart/{z}/{x}/{y}.png (or serve the folder over HTTP)"
echo "open $out/chart/index.html in a browser: it works offline"

echo
echo "== the same tiles in one MBTiles file (TMS rows inside, as the format says), read back by GDAL"
"$meridian" tile "$chart" "$out/chart.mbtiles" -q
gdalinfo "$out/chart.mbtiles" | grep -E "^Driver|^Size|ZOOM_LEVEL|Upper Left|Lower Right" || true

echo
echo "== a plain scanned photo, placed by three control points: --gcp PIXEL,LINE,LAT,LON"
"$meridian" tile Tests/Fixtures/raster/389225main_sw_1965_1024.jpg "$out/photo" \
    --gcp 0,0,25.441266,-78.408414 --gcp 1024,0,25.182248,-76.601538 --gcp 0,768,23.927775,-78.763685 --zoom 5-8
cat "$out/photo/metadata.json"
echo
echo "== interrupted? --resume finishes the job and ends with exactly the tiles of a clean run"
echo "   $meridian tile $chart $out/chart --resume"
