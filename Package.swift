// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Meridian",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "meridian", targets: ["meridian"]),
        .library(name: "MeridianGeometry", targets: ["MeridianGeometry"]),
        .library(name: "MeridianFormats", targets: ["MeridianFormats"]),
        .library(name: "MeridianCoverage", targets: ["MeridianCoverage"]),
        .library(name: "MeridianRaster", targets: ["MeridianRaster"]),
        .library(name: "MeridianOGR", targets: ["MeridianOGR"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
    ],
    targets: [
        // System libraries: C API headers only, found through pkg-config.
        .systemLibrary(
            name: "CGDAL",
            pkgConfig: "gdal",
            providers: [.apt(["libgdal-dev"]), .brew(["gdal"])]
        ),
        .systemLibrary(
            name: "CExpat",
            pkgConfig: "expat",
            providers: [.apt(["libexpat1-dev"]), .brew(["expat"])]
        ),
        // 2D drawing for PNG pictures (anti-aliased paths, text, PNG in and out).
        .systemLibrary(
            name: "CCairo",
            pkgConfig: "cairo",
            providers: [.apt(["libcairo2-dev"]), .brew(["cairo"])]
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
                "MeridianGeometry", "CExpat", "CCairo",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),

        // Routing-app coverage files: rules, validation, route checks.
        .target(name: "MeridianCoverage", dependencies: ["MeridianGeometry", "MeridianFormats"]),

        // Rasters: the only module that talks to GDAL rasters (georeferencing, warp, tiles).
        .target(name: "MeridianRaster", dependencies: ["CGDAL"]),

        // GDAL/OGR's vector formats (GeoPackage, Shapefile, FlatGeobuf, …): typed fields, WKB geometry.
        .target(name: "MeridianOGR", dependencies: ["CGDAL", "MeridianFormats", "MeridianGeometry"]),

        // The command-line tool: thin, one file per subcommand.
        .executableTarget(
            name: "meridian",
            dependencies: [
                "MeridianGeometry",
                "MeridianFormats",
                "MeridianCoverage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // In-library timings for Benchmarks/ (not a product; built with the package).
        .executableTarget(name: "meridian-benchmarks", dependencies: ["MeridianGeometry", "MeridianFormats"], path: "Benchmarks/InLibrary"),

        // (MeridianFormats only to read fixtures; CGDAL for GEOS's validity verdict.)
        .testTarget(name: "MeridianGeometryTests", dependencies: ["MeridianGeometry", "MeridianFormats", "CGDAL"]),
        .testTarget(name: "MeridianRasterTests", dependencies: ["MeridianRaster"]),
        .testTarget(name: "MeridianOGRTests", dependencies: ["MeridianOGR", "MeridianFormats", "MeridianGeometry"]),
        .testTarget(name: "MeridianCoverageTests", dependencies: ["MeridianCoverage", "MeridianFormats", "MeridianGeometry"]),
        .testTarget(
            name: "MeridianFormatsTests",
            dependencies: ["MeridianFormats", "MeridianGeometry", .product(name: "ZIPFoundation", package: "ZIPFoundation")]
        ),
        // End-to-end: runs the built `meridian` binary as a user would. Fixtures for all test
        // targets live in Tests/Fixtures and are found from the source tree (#filePath).
        .testTarget(name: "MeridianCLITests", dependencies: ["meridian"]),
    ]
)
