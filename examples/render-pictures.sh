#!/usr/bin/env bash
# Makes the pictures in examples/pictures/ with `meridian render` (run from anywhere; builds first):
#   chart-route.png     a route into Manele Bay over NOAA chart 19347_2, tiled by `meridian tile`
#   catalog-lanai.png   Lanai's two harbour charts (19351_2, 19347_2), one pyramid made by `meridian tile`
#   coverage.png        a routing-app coverage file's preview (a warned polygon is orange)
#   togeojson-*.png     togeojson's KML fixtures with their styles: a polygon with a hole, a styled line
#   lake-walk.png       a KML walk (examples/data) as pins and a track; also what examples/LakeWalkMap.swift draws
# The pictures are committed: each run remakes them in place, so every render passes --force.
set -euo pipefail
cd "$(dirname "$0")/.."
for product in meridian meridian-gdal meridian-draw; do swift build --product "$product" >&2; done  # render runs meridian-draw
meridian=.build/debug/meridian
out=examples/pictures
tiles=$(mktemp -d)
trap 'rm -rf "$tiles"' EXIT
mkdir -p "$out"

"$meridian" tile Tests/Fixtures/raster/19347_2.KAP "$tiles/chart" --zoom 14-18 --quiet
"$meridian" render examples/data/manele-bay-route.geojson --basemap "$tiles/chart" --force -o "$out/chart-route.png" \
    --size 640x400 --view -156.8889,20.7385,-156.8774,20.7449
"$meridian" tile Tests/Fixtures/raster/19347_2.KAP Tests/Fixtures/raster/19351_2.KAP "$tiles/catalog" --quiet
"$meridian" render examples/data/lanai-harbours.geojson --basemap "$tiles/catalog" --force -o "$out/catalog-lanai.png" \
    --size 640x300 --scale 2 --view -156.9990,20.7370,-156.8750,20.7920
"$meridian" coverage validate Tests/Fixtures/coverage/cases/bowtie.geojson --preview "$out/coverage.png" --size 480x320 --force >/dev/null
"$meridian" render Tests/Fixtures/kml/togeojson/polygon.kml --force -o "$out/togeojson-polygon.png" --size 480x320 --scale 2
"$meridian" render Tests/Fixtures/kml/togeojson/inline_style.kml --force -o "$out/togeojson-inline-style.png" --size 480x320
"$meridian" render examples/data/lake-walk.kml --force -o "$out/lake-walk.png" --size 480x320
ls -l "$out"
