// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Switchyard",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "RTPWire", targets: ["RTPWire"]),
        .library(name: "SRTP", targets: ["SRTP"]),
        .library(name: "MediaControl", targets: ["MediaControl"]),
        .library(name: "MediaRouter", targets: ["MediaRouter"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSRTP",
            pkgConfig: "libsrtp2",
            providers: [.apt(["libsrtp2-dev"])]
        ),
        .systemLibrary(
            name: "COpus",
            pkgConfig: "opus",
            providers: [.apt(["libopus-dev"])]
        ),
        .systemLibrary(
            name: "CVPX",
            pkgConfig: "vpx",
            providers: [.apt(["libvpx-dev"])]
        ),
        .target(name: "CSystemShims"),
        .target(name: "RTPWire"),
        .target(name: "SRTP", dependencies: ["CSRTP", "RTPWire"]),
        .target(name: "MediaControl"),
        .target(name: "MediaRouter", dependencies: ["RTPWire", "SRTP", "CSystemShims", "MediaControl"]),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "RTPWireTests", dependencies: ["RTPWire", "TestSupport"]),
        .testTarget(name: "SRTPTests", dependencies: ["SRTP", "RTPWire", "TestSupport"]),
        .testTarget(name: "MediaRouterTests", dependencies: ["MediaRouter", "MediaControl", "RTPWire", "SRTP", "TestSupport"]),
        .testTarget(name: "CLibraryTests", dependencies: ["COpus", "CVPX", "CSystemShims"]),
    ]
)
