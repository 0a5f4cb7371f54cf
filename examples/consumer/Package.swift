// swift-tools-version:6.0
// A small command-line app that uses Meridian as a library, through public API only: it is what
// an app developer writes. From outside this repository, depend on Meridian by its URL instead of
// the path below (see README.md beside this file).
import PackageDescription

let package = Package(
    name: "CoverageCheck",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Meridian", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "coverage-check",
            dependencies: [
                .product(name: "MeridianGeometry", package: "Meridian"),
                .product(name: "MeridianCoverage", package: "Meridian"),
            ]
        ),
    ]
)
