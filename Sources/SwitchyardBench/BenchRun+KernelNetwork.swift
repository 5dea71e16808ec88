import SwitchyardClient

extension BenchRun {
    /// `--network kernel`: the links the run's schedules impair, shaped by the kernel and installed
    /// clean (the impaired subscribers' downlinks, or with `--publisher-schedule` the publisher's
    /// uplink), ready for `start` at the start of measurement; nil when the clients impair their own.
    func prepareKernelLinks(subscribers: [TrackedSubscriber], publisher: Publisher?) async throws(KernelNetworkError) -> KernelShapedLinks? {
        guard let kernelNetwork else { return nil }
        var links = subscribers.filter(\.isImpaired).enumerated().map { index, tracked in
            KernelShapedLinks.Link(
                label: tracked.label,
                shaper: KernelLinkShaper(
                    port: tracked.subscriber.mediaPort, direction: .toClient, placement: kernelNetwork.placement(.toClient),
                    classMinor: KernelShapedLinks.firstClassMinor + UInt16(index)),
                schedule: options.schedule)
        }
        if options.scenario == .fallback, options.measuresPublisherSide, let publisher {
            links.append(
                KernelShapedLinks.Link(
                    label: "publisher",
                    shaper: KernelLinkShaper(
                        port: publisher.mediaPort, direction: .fromClient, placement: kernelNetwork.placement(.fromClient),
                        classMinor: KernelShapedLinks.firstClassMinor),
                    schedule: options.publisherSchedule))
        }
        let shaped = try KernelShapedLinks(links: links) { [self] in say($0) }
        try await shaped.prepare()
        say("kernel network: \(links.count) link(s) shaped on \(kernelNetwork.serverInterface) / \(kernelNetwork.clientInterface)")
        return shaped
    }
}
