// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Meridian",
    // Synchronization.Mutex sets the floor. MeridianGeometry links no C library: it is what an iOS
    // or macOS app takes at run time. The other products link expat, minizip, SQLite, GDAL or
    // cairo (Debian's packages on Linux, Homebrew's on a Mac): for Macs and servers.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "meridian", targets: ["meridian"]),
        .executable(name: "meridian-gdal", targets: ["meridian-gdal"]),
        .executable(name: "meridian-draw", targets: ["meridian-draw"]),
        .library(name: "MeridianGeometry", targets: ["MeridianGeometry"]),
        .library(name: "MeridianCore", targets: ["MeridianCore"]),
        .library(name: "MeridianFormats", targets: ["MeridianFormats"]),
        .library(name: "MeridianTilingRequest", targets: ["MeridianTilingRequest"]),
        .library(name: "MeridianTiles", targets: ["MeridianTiles"]),
        .library(name: "MeridianPicture", targets: ["MeridianPicture"]),
        .library(name: "MeridianCoverage", targets: ["MeridianCoverage"]),
        .library(name: "MeridianRaster", targets: ["MeridianRaster"]),
        .library(name: "MeridianOGR", targets: ["MeridianOGR"]),
        .library(name: "MeridianTiling", targets: ["MeridianTiling"]),
        .library(name: "MeridianTilingCommandLine", targets: ["MeridianTilingCommandLine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // RealModule: MeridianGeometry's elementary functions (sin, log2, pow…) spelled the same
        // on every platform, without importing Glibc or Darwin, so that it builds for iOS as is.
        .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
        // SystemPackage: FileDescriptor's reads and writes (short writes, EINTR) for MeridianFormats' I/O.
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // `swift package generate-documentation`: the libraries' DocC catalogs (Scripts/docs).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // System libraries: C API headers only, found through pkg-config.
        .systemLibrary(
            name: "CGDAL",
            pkgConfig: "gdal",
            providers: [.apt(["libgdal-dev"]), .brew(["gdal"])]
        ),
        // MBTiles tile stores (MeridianTiles).
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
        // Whole-buffer deflate, faster than zlib's: gzipped vector tiles and PMTiles directories
        // (MeridianTiles' Gzip), PNG tiles' zlib streams (MeridianRaster's PNGEncoder).
        .systemLibrary(
            name: "CDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"]), .brew(["libdeflate"])]
        ),
        // GEOS: vector tile polygons that snapping to the tile grid made invalid are repaired (MeridianTiles).
        .systemLibrary(
            name: "CGEOS",
            pkgConfig: "geos",
            providers: [.apt(["libgeos-dev"]), .brew(["geos"])]
        ),
        .systemLibrary(
            name: "CExpat",
            pkgConfig: "expat",
            providers: [.apt(["libexpat1-dev"]), .brew(["expat"])]
        ),
        // libFuzzer's driver, declared for the fuzz build (Scripts/fuzz); nothing is linked.
        .systemLibrary(name: "CLibFuzzer"),
        // glibc's mallopt, declared in malloc.h (not in Swift's Glibc module); nothing is linked.
        .systemLibrary(name: "CMalloc"),
        // Linux's sync_file_range, declared (not in Swift's Glibc module); nothing is linked.
        .systemLibrary(name: "CFileSync"),
        // Linux's prctl, wrapped (Swift cannot call a variadic C function); nothing is linked.
        .systemLibrary(name: "CProcessControl"),
        // 2D drawing for pictures (anti-aliased paths, text, PNG in and out; MeridianPicture only).
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

        // Pure Swift: positions, geometries, features, ordered JSON values. No C library (not
        // even MeridianCore's platform layer): the product apps take on iOS.
        .target(
            name: "MeridianGeometry",
            dependencies: [
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "RealModule", package: "swift-numerics"),
            ]
        ),

        // What every module needs that is not about formats: errors with their exit codes,
        // diagnostics, locks, worker threads and their hand-off queue, colours, and the platform
        // layer (Platform/), the only code that imports the C library (Glibc, Musl or Darwin).
        .target(
            name: "MeridianCore",
            dependencies: [.product(name: "DequeModule", package: "swift-collections")]
        ),

        // Streaming readers and writers, one folder per format, plus the format registry. Links
        // expat and minizip only: pictures are MeridianPicture's, tile stores MeridianTiles'.
        .target(
            name: "MeridianFormats",
            dependencies: [
                "MeridianCore", "MeridianGeometry", "CExpat", "CMinizip", "CFileSync",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),

        // What a tiling run is asked to make, as plain values (the request, its choices, the tile
        // formats, schemes and shards): no C library, no Foundation, so that `meridian` parses
        // `tile` into one and sends it to `meridian-gdal` as it is. MeridianTiles, MeridianRaster
        // and MeridianTiling re-export it.
        .target(name: "MeridianTilingRequest", dependencies: ["MeridianCore", "MeridianGeometry"]),

        // Tile stores: MBTiles files read and written (resumably), over one small SQLite wrapper;
        // Mapbox Vector Tiles cut from vector layers, written into a folder or an MBTiles file.
        .target(name: "MeridianTiles", dependencies: ["MeridianCore", "MeridianTilingRequest", "CSQLite", "CDeflate", "CGEOS", "CFileSync", "MeridianGeometry", "MeridianFormats"]),

        // Pictures: viewport, simplestyle drawing, labels, SVG and cairo canvases, basemaps under
        // PNGs (tile folders and MBTiles), and the svg and png formats. The only module that
        // links cairo and the image codecs; the command line draws through `meridian-draw`.
        .target(
            name: "MeridianPicture",
            dependencies: ["MeridianCore", "MeridianGeometry", "MeridianFormats", "MeridianTiles", "CCairo", "CTurboJPEG", "CWebP"]
        ),

        // Routing-app coverage files: rules, validation, route checks.
        .target(name: "MeridianCoverage", dependencies: ["MeridianCore", "MeridianGeometry", "MeridianFormats"]),

        // GDAL's C API wrapped once for MeridianRaster and MeridianOGR (internal: no product):
        // registration, errors and GDAL's messages, the version, datasets and spatial references
        // that free themselves.
        .target(name: "GDALSupport", dependencies: ["CGDAL", "CSQLite", "MeridianCore", "MeridianFormats"]),

        // Rasters: the only module that talks to GDAL rasters (georeferencing, warp, tiles into a
        // folder or, through MeridianTiles, an MBTiles file).
        .target(name: "MeridianRaster", dependencies: ["MeridianCore", "MeridianTilingRequest", "GDALSupport", "CGDAL", "CDeflate", "CFileSync", "MeridianGeometry", "MeridianFormats", "MeridianTiles"]),

        // GDAL/OGR's vector formats (GeoPackage, Shapefile, FlatGeobuf, …): typed fields, WKB geometry.
        .target(name: "MeridianOGR", dependencies: ["MeridianCore", "GDALSupport", "CGDAL", "MeridianFormats", "MeridianGeometry"]),

        // The tiling job: rasters, vector data into Mapbox Vector Tiles, or vector data drawn into
        // image tiles, as one library call (inputs, output and options in; plan, progress and
        // summary out). `meridian-gdal tile` parses its arguments into it.
        .target(
            name: "MeridianTiling",
            dependencies: ["MeridianCore", "MeridianTilingRequest", "MeridianGeometry", "MeridianFormats", "MeridianTiles", "MeridianRaster", "MeridianOGR", "GDALSupport", "CGDAL",
                           "CMalloc"]
        ),

        // What the executables share: error reporting with exit codes, progress lines, the
        // typed values people type (boxes, tiles, sizes, points) parsed into the library's types,
        // running the helper executables, and the registry of Meridian's own formats with
        // pictures drawn by `meridian-draw`.
        .target(
            name: "MeridianCommandLine",
            dependencies: ["MeridianCore", "MeridianGeometry", "MeridianFormats", "MeridianTilingRequest", "CProcessControl",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),

        // How a tiling run is worded on a terminal: the tiling and tile-archive errors naming
        // their options, the progress line, the summary, the interruption notes. Apart from
        // MeridianCommandLine because `meridian` links neither MeridianTiles nor MeridianTiling.
        .target(
            name: "MeridianTilingCommandLine",
            dependencies: ["MeridianCore", "MeridianCommandLine", "MeridianFormats", "MeridianGeometry", "MeridianTiles", "MeridianRaster", "MeridianTiling"]
        ),

        // The command-line tool: thin, one file per subcommand. It never links GDAL, cairo, SQLite
        // or Foundation (start-up time): GDAL-backed subcommands (tile) are forwarded to
        // `meridian-gdal`, git-style, and GDAL's formats and pictures are written by
        // `meridian-gdal` and `meridian-draw` as children.
        .executableTarget(
            name: "meridian",
            dependencies: [
                "MeridianCore", "MeridianGeometry",
                "MeridianFormats",
                "MeridianCoverage",
                "MeridianTilingRequest",
                "MeridianCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // The GDAL-backed subcommands (tile), in their own process so libgdal's start-up cost
        // (about 90 ms and 35 MB) never touches the other subcommands.
        .executableTarget(
            name: "meridian-gdal",
            dependencies: [
                "MeridianCore", "MeridianRaster", "MeridianTiling", "MeridianTilingCommandLine",
                "MeridianOGR",
                "GDALSupport",
                "MeridianFormats",
                "MeridianGeometry",
                "MeridianCommandLine",
                "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Pictures (SVG, PNG), in their own process so that cairo's libraries (and libjpeg-turbo,
        // libwebp, SQLite for basemaps) load only when something is drawn.
        .executableTarget(
            name: "meridian-draw",
            dependencies: [
                "MeridianPicture",
                "MeridianFormats",
                "MeridianCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Fuzz targets for every parser (Scripts/fuzz builds them with libFuzzer); built
        // normally, it replays inputs through the same code.
        .executableTarget(name: "meridian-fuzz", dependencies: ["MeridianFormats", "MeridianCoverage", "MeridianGeometry", "MeridianTiles", "MeridianCommandLine", "CLibFuzzer",
                                                         "MeridianRaster", "GDALSupport"]),

        // In-library timings for Benchmarks/ (not a product; built with the package).
        .executableTarget(name: "meridian-benchmarks", dependencies: ["MeridianGeometry", "MeridianFormats"], path: "Benchmarks/InLibrary"),

        // What every test target shares: finding fixtures (a missing table fails the test) and
        // the exit statuses by name.
        .target(name: "MeridianTestSupport", dependencies: ["MeridianCore", "MeridianFormats"], path: "Tests/MeridianTestSupport"),

        // (MeridianFormats only to read fixtures; CGDAL for GEOS's validity verdict.)
        .testTarget(name: "MeridianCoreTests", dependencies: ["MeridianCore"]),
        .testTarget(name: "MeridianGeometryTests", dependencies: ["MeridianGeometry", "MeridianFormats", "CGDAL", "MeridianTestSupport"]),
        .testTarget(name: "GDALSupportTests", dependencies: ["GDALSupport", "MeridianTestSupport"]),
        .testTarget(name: "MeridianRasterTests", dependencies: ["MeridianCore", "MeridianRaster", "MeridianTiles", "MeridianGeometry", "MeridianFormats", "MeridianTestSupport"]),
        .testTarget(name: "MeridianTilesTests", dependencies: ["MeridianCore", "MeridianTiles", "MeridianFormats", "MeridianGeometry", "MeridianTestSupport", "CGDAL"]),
        .testTarget(
            name: "MeridianPictureTests",
            dependencies: ["MeridianCore", "MeridianPicture", "MeridianTiles", "MeridianFormats", "MeridianGeometry", "MeridianTestSupport"]
        ),
        .testTarget(name: "MeridianTilingTests", dependencies: ["MeridianCore", "MeridianTiling", "MeridianRaster", "MeridianTiles", "MeridianFormats", "MeridianGeometry", "MeridianTestSupport"]),
        .testTarget(name: "MeridianTilingCommandLineTests", dependencies: ["MeridianCore", "MeridianTilingCommandLine", "MeridianCommandLine", "MeridianTiling",
                                                                          "MeridianTiles", "MeridianRaster", "MeridianFormats"]),
        .testTarget(name: "MeridianOGRTests", dependencies: ["MeridianCore", "MeridianOGR", "MeridianFormats", "MeridianGeometry", "MeridianTestSupport"]),
        .testTarget(
            name: "MeridianCommandLineTests",
            dependencies: ["MeridianCore", "MeridianCommandLine", "MeridianTilingRequest", "MeridianFormats", "MeridianGeometry", "MeridianTestSupport",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "MeridianCoverageTests", dependencies: ["MeridianCore", "MeridianCoverage", "MeridianFormats", "MeridianGeometry", "MeridianTestSupport"]),
        .testTarget(
            name: "MeridianFormatsTests",
            dependencies: ["MeridianCore", "MeridianFormats", "MeridianGeometry", "MeridianTestSupport"]
        ),
        // End-to-end: runs the built `meridian` binary as a user would. Fixtures for all test
        // targets live in Tests/Fixtures and are found from the source tree (#filePath).
        .testTarget(
            name: "MeridianCLITests",
            dependencies: ["MeridianCore", "meridian", "meridian-gdal", "meridian-draw", "meridian-fuzz", "MeridianRaster", "MeridianTiles", "MeridianFormats",
                           "MeridianCommandLine", "MeridianTestSupport"]
        ),
    ]
)
