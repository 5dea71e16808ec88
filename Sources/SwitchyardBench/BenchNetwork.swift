/// Where the impairments of a run's schedules are applied (`--network`).
public enum BenchNetwork: String, CaseIterable, Codable, Sendable {
    /// In the clients' own userspace, on each socket (loss, bursts, delay, jitter, a rate cap).
    case client
    /// In the kernel: daemon and clients in two network namespaces joined by a veth pair, each
    /// impaired client's port capped by a real queue with a real tail drop and its loss dropped by
    /// nftables (`KernelNetwork`, `KernelLinkShaper`); no delay or jitter, as there is no netem.
    case kernel

    /// The scenarios that follow a schedule of impairments, so the only ones a kernel network changes.
    public static let kernelScenarios: [BenchScenario] = [.fallback, .bandwidth, .simulcast, .red]
}
