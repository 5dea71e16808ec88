import Synchronization
import SwitchyardClient

/// Clients' links shaped by the kernel, each following its schedule: `prepare` readies the
/// interfaces and installs every link clean, `start` applies each step at its time from the start
/// of measurement (running `tc` and `nft` as child processes on a queue of their own, never on a media
/// thread), and `stop` removes every queue and rule it made.
final class KernelShapedLinks: Sendable {
    /// One direction of one client's link and what it goes through.
    struct Link: Sendable {
        var label: String
        var shaper: KernelLinkShaper
        var schedule: ImpairmentSchedule
    }

    /// Every class number handed out starts here (0x10), clear of the `htb` root's own.
    static let firstClassMinor: UInt16 = 0x10

    let links: [Link]
    private let progress: @Sendable (String) -> Void
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let failures = Mutex<[String]>([])

    /// Refuses any step the kernel cannot apply, before anything is changed.
    init(links: [Link], progress: @escaping @Sendable (String) -> Void) throws(KernelNetworkError) {
        for link in links {
            for step in link.schedule.steps {
                if let refusal = KernelLinkShaper.refusal(of: step.impairment) { throw .unsupportedImpairment("\(link.label): \(refusal)") }
            }
        }
        self.links = links
        self.progress = progress
    }

    /// Readies each egress interface and receiving namespace once, and installs every link clean.
    func prepare() async throws(KernelNetworkError) {
        try await KernelCommand.perform(preparation)
    }

    /// The commands `prepare` runs.
    var preparation: [KernelCommand] {
        get throws(KernelNetworkError) {
            var commands: [KernelCommand] = []
            var egresses: [String] = []
            var ingresses: [String] = []
            for link in links {
                let placement = link.shaper.placement
                let egress = "\(placement.egressNamespace ?? "") \(placement.egressInterface)"
                if !egresses.contains(egress) {
                    egresses.append(egress)
                    commands += KernelLinkShaper.prepareEgress(namespace: placement.egressNamespace, interface: placement.egressInterface)
                }
                if !ingresses.contains(placement.ingressNamespace ?? "") {
                    ingresses.append(placement.ingressNamespace ?? "")
                    commands += KernelLinkShaper.prepareIngress(namespace: placement.ingressNamespace)
                }
            }
            for link in links { commands += try link.shaper.install(.clean) }
            return commands
        }
    }

    /// Every step of every link with its time, in the order they are applied.
    var timeline: [(seconds: Double, link: Int, impairment: NetworkImpairment)] {
        links.indices.flatMap { index in links[index].schedule.steps.map { (seconds: $0.startSeconds, link: index, impairment: $0.impairment) } }
            .enumerated().sorted { ($0.element.seconds, $0.offset) < ($1.element.seconds, $1.offset) }.map(\.element)
    }

    /// Applies the schedules from `start` (`MonotonicClock` nanoseconds) on.
    func start(at start: UInt64) {
        let steps = timeline
        task.withLock { running in
            running = Task { [self] in
                var current = links.map { _ in NetworkImpairment.clean }
                for step in steps {
                    let due = start + UInt64(step.seconds * 1e9)
                    let now = MonotonicClock.now()
                    if due > now {
                        do { try await Task.sleep(for: .nanoseconds(Int64(due - now))) } catch { return }
                    }
                    let link = links[step.link]
                    do {
                        try await KernelCommand.perform(link.shaper.change(from: current[step.link], to: step.impairment))
                        current[step.link] = step.impairment
                        let lateness = Double(MonotonicClock.now() - due) / 1e9
                        progress("kernel network: \(link.label) \(link.shaper.direction.rawValue) \(step.impairment) at \(step.seconds) s (+\(Int(lateness * 1000)) ms)")
                    } catch {
                        failures.withLock { $0.append("kernel network: \(link.label) at \(step.seconds) s: \(error)") }
                    }
                }
            }
        }
    }

    /// Stops applying steps and removes every queue and rule; returns what failed along the way.
    func stop() async -> [String] {
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
        var clearing: [KernelCommand] = []
        for link in links {
            let placement = link.shaper.placement
            let egress = KernelLinkShaper.clearEgress(namespace: placement.egressNamespace, interface: placement.egressInterface)
            let ingress = KernelLinkShaper.clearIngress(namespace: placement.ingressNamespace)
            if !clearing.contains(egress) { clearing.append(egress) }
            if !clearing.contains(ingress) { clearing.append(ingress) }
        }
        for command in clearing {
            do { try await KernelCommand.perform([command]) } catch { failures.withLock { $0.append("kernel network: clearing: \(error)") } }
        }
        return failures.withLock { $0 }
    }
}
