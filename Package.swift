// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Meridian",
    platforms: [.macOS(.v15)],  // Synchronization.Mutex
    products: [
        .executable(name: "meridian", targets: ["meridian"]),
        .executable(name: "meridian-gdal", targets: ["meridian-gdal"]),
        .library(name: "MeridianGeometry", targets: ["MeridianGeometry"]),
        .library(name: "MeridianFormats", targets: ["MeridianFormats"]),
        .library(name: "MeridianCoverage", targets: ["MeridianCoverage"]),
        .library(name: "MeridianRaster", targets: ["MeridianRaster"]),
        .library(name: "MeridianOGR", targets: ["MeridianOGR"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    ],
    targets: [
        // System libraries: C API headers only, found through pkg-config.
        .systemLibrary(
            name: "CGDAL",
            pkgConfig: "gdal",
            providers: [.apt(["libgdal-dev"]), .brew(["gdal"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // Zip archives (KMZ), read with bounded inflates; zlib's contrib/minizip.
        .systemLibrary(
            name: "CMinizip",
            pkgConfig: "minizip",
            providers: [.apt(["libminizip-dev"]), .brew(["minizip"])]
        ),
        .systemLibrary(
            name: "CExpat",
            pkgConfig: "expat",
            providers: [.apt(["libexpat1-dev"]), .brew(["expat"])]
        ),
        // libFuzzer's driver, declared for the fuzz build (Scripts/fuzz); nothing is linked.
        .systemLibrary(name: "CLibFuzzer"),
        // 2D drawing for PNG pictures (anti-aliased paths, text, PNG in and out).
        .systemLibrary(
            name: "CCairo",
            pkgConfig: "cairo",
            providers: [.apt(["libcairo2-dev"]), .brew(["cairo"])]
        ),
        // JPEG and WebP basemap tiles under PNG pictures (cairo reads only PNG).
        .systemLibrary(
            name: "CTurboJPEG",
            pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"]), .brew(["jpeg-turbo"])]
        ),
        .systemLibrary(
            name: "CWebP",
            pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"]), .brew(["webp"])]
        ),

        // Pure Swift: positions, geometries, features, ordered JSON values.
        .target(
            name: "MeridianGeometry",
            dependencies: [
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),

        // Streaming readers and writers, one folder per format, plus the format registry.
        .target(
            name: "MeridianFormats",
            dependencies: [
                "MeridianGeometry", "CExpat", "CCairo", "CTurboJPEG", "CWebP", "CSQLite", "CMinizip",
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),

        // Routing-app coverage files: rules, validation, route checks.
        .target(name: "MeridianCoverage", dependencies: ["MeridianGeometry", "MeridianFormats"]),

        // Rasters: the only module that talks to GDAL rasters (georeferencing, warp, tiles).
        // Tile stores write MBTiles through SQLite's C API.
        .target(name: "MeridianRaster", dependencies: ["CGDAL", "CSQLite", "MeridianGeometry", "MeridianFormats"]),

        // GDAL/OGR's vector formats (GeoPackage, Shapefile, FlatGeobuf, …): typed fields, WKB geometry.
        .target(name: "MeridianOGR", dependencies: ["CGDAL", "MeridianFormats", "MeridianGeometry"]),

        // What both executables share: error reporting with exit codes, progress lines, the
        // typed values people type (boxes, tiles, sizes, points) parsed into the library's types.
        .target(
            name: "MeridianCommandLine",
            dependencies: ["MeridianGeometry", "MeridianFormats", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),

        // The command-line tool: thin, one file per subcommand. It never links GDAL: GDAL-backed
        // subcommands (tile) are forwarded to `meridian-gdal`, git-style.
        .executableTarget(
            name: "meridian",
            dependencies: [
                "MeridianGeometry",
                "MeridianFormats",
                "MeridianCoverage",
                "MeridianCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // The GDAL-backed subcommands (tile), in their own process so libgdal's start-up cost
        // (about 90 ms and 35 MB) never touches the other subcommands.
        .executableTarget(
            name: "meridian-gdal",
            dependencies: [
                "MeridianRaster",
                "MeridianOGR",
                "MeridianFormats",
                "MeridianGeometry",
                "MeridianCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Fuzz targets for every parser (Scripts/fuzz builds them with libFuzzer); built
        // normally, it replays inputs through the same code.
        .executableTarget(name: "meridian-fuzz", dependencies: ["MeridianFormats", "MeridianCoverage", "MeridianGeometry", "MeridianCommandLine", "CLibFuzzer"]),

        // In-library timings for Benchmarks/ (not a product; built with the package).
        .executableTarget(name: "meridian-benchmarks", dependencies: ["MeridianGeometry", "MeridianFormats"], path: "Benchmarks/InLibrary"),

        // What every test target shares: finding fixtures (a missing table fails the test) and
        // the exit statuses by name.
        .target(name: "MeridianTestSupport", dependencies: ["MeridianFormats"], path: "Tests/MeridianTestSupport"),

        // (MeridianFormats only to read fixtures; CGDAL for GEOS's validity verdict.)
        .testTarget(name: "MeridianGeometryTests", dependencies: ["MeridianGeometry", "MeridianFormats", "CGDAL", "MeridianTestSupport"]),
        .testTarget(name: "MeridianRasterTests", dependencies: ["MeridianRaster", "MeridianGeometry", "MeridianFormats", "MeridianTestSupport"]),
        .testTarget(name: "MeridianOGRTests", dependencies: ["MeridianOGR", "MeridianFormats", "MeridianGeometry", "MeridianTestSupport"]),
        .testTarget(
            name: "MeridianCommandLineTests",
            dependencies: ["MeridianCommandLine", "MeridianTestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "MeridianCoverageTests", dependencies: ["MeridianCoverage", "MeridianFormats", "MeridianGeometry", "MeridianTestSupport"]),
        .testTarget(
            name: "MeridianFormatsTests",
            dependencies: ["MeridianFormats", "MeridianGeometry", "MeridianTestSupport"]
        ),
        // End-to-end: runs the built `meridian` binary as a user would. Fixtures for all test
        // targets live in Tests/Fixtures and are found from the source tree (#filePath).
        .testTarget(name: "MeridianCLITests", dependencies: ["meridian", "meridian-gdal", "meridian-fuzz", "MeridianRaster", "MeridianFormats", "MeridianCommandLine", "MeridianTestSupport"]),
    ]
)
