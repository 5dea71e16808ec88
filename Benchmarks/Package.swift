// swift-tools-version: 6.1
// The benchmark suite is its own package so that `make test` never builds package-benchmark.
import PackageDescription

let package = Package(
    name: "SwitchyardBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Switchyard", path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "WireBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "Quality", package: "Switchyard"),
                .product(name: "RTPWire", package: "Switchyard"),
                .product(name: "SRTP", package: "Switchyard"),
            ],
            path: "Benchmarks/WireBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        // The loopback forwarding benchmark of the media plane: a plain executable, not a package-benchmark
        // suite (`make bench` runs it with `swift run -c release ForwardingBenchmark` and passes
        // `--skip-target ForwardingBenchmark` to the plugin, which would otherwise pick up every executable
        // under Benchmarks/).
        .executableTarget(
            name: "ForwardingBenchmark",
            dependencies: [
                "AllocationCounter",
                .product(name: "MediaRouter", package: "Switchyard"),
                .product(name: "MediaControl", package: "Switchyard"),
                .product(name: "RTPWire", package: "Switchyard"),
                .product(name: "SRTP", package: "Switchyard"),
            ],
            path: "Benchmarks/ForwardingBenchmark"
        ),
        // The minimal C forwarder (recvmmsg, unprotect, per-subscriber protect, sendmmsg) under the same load,
        // for a same-machine ceiling: `swift run -c release CReferenceForwarder`.
        .executableTarget(
            name: "CReferenceForwarder",
            path: "Benchmarks/CReferenceForwarder",
            linkerSettings: [.linkedLibrary("srtp2")]
        ),
        // Counting malloc / calloc / realloc / aligned allocations by defining them in the executable and
        // forwarding to glibc's __libc_* entry points; linked into ForwardingBenchmark only.
        .target(
            name: "AllocationCounter",
            path: "Benchmarks/AllocationCounter"
        ),
    ]
)
