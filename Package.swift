// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Switchyard",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "RTPWire", targets: ["RTPWire"]),
        .library(name: "SRTP", targets: ["SRTP"]),
        .library(name: "DTLS", targets: ["DTLS"]),
        .library(name: "ICE", targets: ["ICE"]),
        .library(name: "SessionDescription", targets: ["SessionDescription"]),
        .library(name: "Quality", targets: ["Quality"]),
        .library(name: "MediaControl", targets: ["MediaControl"]),
        .library(name: "MediaRouter", targets: ["MediaRouter"]),
        .library(name: "SignalingProtocol", targets: ["SignalingProtocol"]),
        .library(name: "Signaling", targets: ["Signaling"]),
        .library(name: "Webhooks", targets: ["Webhooks"]),
        .library(name: "Cluster", targets: ["Cluster"]),
        .library(name: "Archiving", targets: ["Archiving"]),
        .library(name: "SwitchyardServer", targets: ["SwitchyardServer"]),
        .library(name: "SwitchyardClient", targets: ["SwitchyardClient"]),
        .executable(name: "switchyard", targets: ["switchyard"]),
        .executable(name: "switchyard-bench", targets: ["switchyard-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Already resolved for jwt-kit; Signaling mints TURN credentials with its HMAC-SHA1.
        .package(url: "https://github.com/apple/swift-crypto.git", "4.1.0"..<"6.0.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSRTP",
            pkgConfig: "libsrtp2",
            providers: [.apt(["libsrtp2-dev"])]
        ),
        // libopus and libvpx live in the default search paths, so they are found without pkg-config.
        // Through pkg-config SwiftPM would put -L/usr/lib/<triplet> ahead of libsrtp2's prefix, and
        // every binary that links them would pick up the distribution's libsrtp2 instead of the
        // OpenSSL build (docs/srtp-build.md).
        // OpenSSL for DTLS and STUN's HMAC-SHA1, found in the default search paths for the same reason.
        .systemLibrary(name: "COpenSSL", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "COpus"),
        .systemLibrary(name: "CVPX"),
        // FFmpeg's muxers and scaler for archives (in the default search paths, like libvpx).
        .systemLibrary(name: "CAVFormat", providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev"])]),
        .target(name: "CSystemShims"),
        .target(name: "RTPWire"),
        .target(name: "SRTP", dependencies: ["CSRTP", "RTPWire"]),
        .target(name: "DTLS", dependencies: ["COpenSSL", "SRTP"]),
        .target(name: "ICE", dependencies: ["COpenSSL"]),
        .target(name: "SessionDescription", dependencies: ["RTPWire", "MediaControl"]),
        .target(name: "Quality", dependencies: ["RTPWire"]),
        .target(name: "MediaControl"),
        .target(name: "MediaRouter", dependencies: ["RTPWire", "SRTP", "DTLS", "ICE", "Quality", "CSystemShims", "MediaControl"]),
        .target(name: "SignalingProtocol"),
        .target(
            name: "Signaling",
            dependencies: [
                "SignalingProtocol", "MediaControl", "SessionDescription", "RTPWire",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "Webhooks",
            dependencies: [
                "Signaling", "SignalingProtocol",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "Cluster",
            dependencies: [
                "Signaling", "SignalingProtocol", "MediaControl", "SRTP", "Webhooks",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "Archiving",
            dependencies: [
                "Signaling", "SignalingProtocol", "MediaControl", "RTPWire", "CAVFormat", "CVPX", "COpus",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "SwitchyardServer",
            dependencies: [
                "Signaling", "SignalingProtocol", "MediaControl", "MediaRouter", "Quality", "SRTP", "Cluster", "Webhooks", "Archiving", "CSystemShims",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // Embedded in the binary, so the daemon serves its browser client with no files beside it.
            resources: [
                .embedInCode("Web/index.html"), .embedInCode("Web/demo.js"), .embedInCode("Web/switchyard.js"),
                .embedInCode("Web/switchyard-e2ee-worker.js"),
            ]
        ),
        .target(
            name: "SwitchyardClient",
            dependencies: [
                "SignalingProtocol", "RTPWire", "SRTP", "COpus", "CVPX", "CSystemShims",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "SwitchyardBench",
            dependencies: [
                "SwitchyardClient", "SignalingProtocol", "Signaling", "SRTP", "Webhooks",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "switchyard-bench",
            dependencies: [
                "SwitchyardBench", "SwitchyardClient", "SignalingProtocol", "CSystemShims",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "switchyard",
            dependencies: [
                "SwitchyardServer", "Signaling", "SignalingProtocol", "SRTP", "CSystemShims",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .target(
            name: "MediaTestSupport", dependencies: ["MediaControl", "RTPWire", "SRTP", "DTLS", "ICE", "COpenSSL"], path: "Tests/MediaTestSupport"),
        .testTarget(name: "RTPWireTests", dependencies: ["RTPWire", "TestSupport"]),
        .testTarget(name: "SRTPTests", dependencies: ["SRTP", "RTPWire", "TestSupport"]),
        .testTarget(name: "DTLSTests", dependencies: ["DTLS", "SRTP", "MediaTestSupport"]),
        .testTarget(name: "ICETests", dependencies: ["ICE", "TestSupport"]),
        .testTarget(name: "SessionDescriptionTests", dependencies: ["SessionDescription", "RTPWire", "MediaControl", "TestSupport"]),
        .testTarget(name: "QualityTests", dependencies: ["Quality", "RTPWire", "TestSupport"]),
        .testTarget(
            name: "MediaRouterTests", dependencies: ["MediaRouter", "MediaControl", "Quality", "RTPWire", "SRTP", "TestSupport", "MediaTestSupport"]),
        .testTarget(name: "CLibraryTests", dependencies: ["COpus", "CVPX", "CSystemShims"]),
        .testTarget(name: "SignalingProtocolTests", dependencies: ["SignalingProtocol", "TestSupport"]),
        .testTarget(name: "SwitchyardClientTests", dependencies: ["SwitchyardClient"]),
        .testTarget(name: "SwitchyardBenchTests", dependencies: ["SwitchyardBench", "SwitchyardClient"]),
        .testTarget(
            name: "WebhooksTests",
            dependencies: [
                "Webhooks", "Signaling", "SignalingProtocol",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "ArchivingTests", dependencies: ["Archiving", "MediaControl", "Signaling", "SignalingProtocol", "RTPWire"]),
        .testTarget(
            name: "SignalingTests",
            dependencies: ["Signaling", "SignalingProtocol", .product(name: "JWTKit", package: "jwt-kit")]
        ),
        .testTarget(
            name: "SwitchyardServerTests",
            dependencies: [
                "SwitchyardServer", "Signaling", "SignalingProtocol", "MediaControl", "RTPWire", "SRTP", "MediaTestSupport",
                "SwitchyardClient", "Cluster", "Webhooks", "Archiving",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ]
)
