import Foundation
import SwitchyardClient
import Testing

@testable import SwitchyardBench

/// What a schedule turns into under `--network kernel`: the `tc` and `nft` commands, checked
/// without running them, and the impairments the kernel cannot apply, refused with the reason.
@Suite struct KernelLinkShaperTests {
    let network = KernelNetwork(tag: 4242)

    private func shaper(_ direction: KernelLinkShaper.Direction, port: UInt16 = 40_000, minor: UInt16 = 0x10) -> KernelLinkShaper {
        KernelLinkShaper(port: port, direction: direction, placement: network.placement(direction), classMinor: minor)
    }

    private func impairment(_ text: String) throws -> NetworkImpairment { try NetworkImpairment(parsing: text) }

    @Test func aDownlinkIsQueuedOnTheServersVethAndDroppedAtTheClientsInput() throws {
        let commands = try shaper(.toClient).install(.clean).map(\.description)
        let tc = "/usr/sbin/ip netns exec swy-4242-srv /usr/sbin/tc"
        #expect(
            commands == [
                "\(tc) class add dev swy4242s parent 1: classid 1:10 htb rate 10gbit ceil 10gbit quantum 1514",
                "\(tc) qdisc add dev swy4242s parent 1:10 handle 10: tbf rate 1gbit burst 65536 limit 1000000",
                "\(tc) filter add dev swy4242s parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff match ip dport 40000 0xffff flowid 1:10",
                "/usr/sbin/ip netns exec swy-4242-cli /usr/sbin/nft add chain inet switchyard_shaper to_40000; "
                    + "add rule inet switchyard_shaper input iifname \"swy4242c\" udp dport 40000 jump to_40000",
            ])
    }

    @Test func anUplinkIsQueuedOnTheClientsVethMatchedByItsSourcePortAndDroppedAtTheServersInput() throws {
        let commands = try shaper(.fromClient, port: 41_000, minor: 0x1a).install(impairment("loss=0.2")).map(\.description)
        #expect(commands.count == 4)
        #expect(commands[0].hasPrefix("/usr/sbin/ip netns exec swy-4242-cli /usr/sbin/tc class add dev swy4242c parent 1: classid 1:1a "))
        #expect(commands[2].contains("match ip sport 41000 0xffff flowid 1:1a"))
        #expect(
            commands[3] == "/usr/sbin/ip netns exec swy-4242-srv /usr/sbin/nft add chain inet switchyard_shaper from_41000; "
                + "add rule inet switchyard_shaper input iifname \"swy4242s\" udp sport 41000 jump from_41000; "
                + "add rule inet switchyard_shaper from_41000 numgen random mod 1000 < 200 drop")
    }

    /// The bandwidth scenario's default schedule: each step changes the bucket alone, its queue
    /// 200 ms at the cap (the schedule's default `queue`), as a class change of the leaf.
    @Test func aMovingCapChangesTheBucketAndItsQueueInBytesAtEachStep() throws {
        let link = shaper(.toClient)
        let schedule = try ImpairmentSchedule(parsing: "0s:rate=2mbps;10s:rate=300kbps;20s:rate=2mbps;30s:clean")
        var previous = NetworkImpairment.clean
        var changes: [[String]] = []
        for step in schedule.steps {
            changes.append(try link.change(from: previous, to: step.impairment).map(\.description))
            previous = step.impairment
        }
        let change = "/usr/sbin/ip netns exec swy-4242-srv /usr/sbin/tc qdisc change dev swy4242s parent 1:10 handle 10: tbf rate"
        #expect(
            changes == [
                ["\(change) 2000000bit burst 1600 limit 50000"],
                ["\(change) 300000bit burst 1600 limit 7500"],
                ["\(change) 2000000bit burst 1600 limit 50000"],
                ["\(change) 1gbit burst 65536 limit 1000000"],
            ])
        #expect(try link.change(from: impairment("rate=300kbps,queue=80ms"), to: impairment("rate=300kbps,queue=80ms")).isEmpty, "nothing changed, nothing run")
        #expect(try link.change(from: .clean, to: impairment("rate=300kbps,queue=80ms")).first?.arguments.suffix(2) == ["limit", "3000"], "at least two packets")
        #expect(try link.change(from: .clean, to: impairment("rate=1mbps,queue=80ms")).first?.arguments.suffix(2) == ["limit", "10000"])
    }

    @Test func lossIsReplacedAtomicallyAndABlackoutDropsEverything() throws {
        let link = shaper(.toClient)
        let nft = "/usr/sbin/ip netns exec swy-4242-cli /usr/sbin/nft flush chain inet switchyard_shaper to_40000"
        #expect(try link.change(from: .clean, to: impairment("loss=0.3")).map(\.description) == ["\(nft); add rule inet switchyard_shaper to_40000 numgen random mod 1000 < 300 drop"])
        #expect(try link.change(from: impairment("loss=0.3"), to: impairment("loss=1")).map(\.description) == ["\(nft); add rule inet switchyard_shaper to_40000 drop"])
        #expect(try link.change(from: impairment("loss=1"), to: .clean).map(\.description) == [nft])
        #expect(try link.change(from: .clean, to: impairment("loss=0.0001")).map(\.description) == ["\(nft); add rule inet switchyard_shaper to_40000 numgen random mod 1000 < 1 drop"])
        // A cap and loss at once: the bucket first, then the chain.
        let both = try link.change(from: .clean, to: impairment("loss=0.1,rate=500kbps"))
        #expect(both.count == 2 && both[0].arguments.contains("500000bit") && both[1].arguments.last?.hasSuffix("< 100 drop") == true)
    }

    @Test func delayJitterAndBurstyLossAreRefusedWithTheReason() throws {
        for text in ["delay=40ms", "delay=40ms,jitter=10ms", "rate=300kbps,delay=20ms"] {
            let refusal = try #require(KernelLinkShaper.refusal(of: impairment(text)), "\(text)")
            #expect(refusal.contains("netem"), "\(refusal)")
            #expect(throws: KernelNetworkError.self) { try shaper(.toClient).change(from: .clean, to: impairment(text)) }
            #expect(throws: KernelNetworkError.self) { try shaper(.toClient).install(impairment(text)) }
        }
        let bursty = try #require(KernelLinkShaper.refusal(of: impairment("loss=0.3,burst=4")))
        #expect(bursty.contains("numgen") && bursty.contains("burst"), "\(bursty)")
        #expect(KernelLinkShaper.refusal(of: try impairment("loss=1,burst=4")) == nil, "every packet lost is a blackout, bursts or not")
        #expect(KernelLinkShaper.refusal(of: try impairment("loss=0.3,rate=300kbps,queue=80ms")) == nil)

        let links = [KernelShapedLinks.Link(label: "s1", shaper: shaper(.toClient), schedule: try ImpairmentSchedule(parsing: "0s:rate=1mbps;5s:jitter=5ms,delay=10ms"))]
        #expect(throws: KernelNetworkError.self) { try KernelShapedLinks(links: links) { _ in } }
    }

    @Test func optionsRefuseWhatAKernelNetworkCannotRun() throws {
        var options = BenchOptions(scenario: .fallback)
        options.network = .kernel
        #expect(options.problem == nil)
        options.schedule = try ImpairmentSchedule(parsing: "3s:loss=0.3,delay=50ms;11s:clean")
        #expect(options.problem?.contains("netem") == true, "\(options.problem ?? "")")
        options.schedule = try ImpairmentSchedule(parsing: "3s:loss=0.3,burst=3;11s:clean")
        #expect(options.problem?.contains("burst") == true, "\(options.problem ?? "")")

        var external = BenchOptions(scenario: .bandwidth)
        external.network = .kernel
        external.serverURL = "ws://10.0.0.5:7880/v1/ws"
        #expect(external.problem?.contains("--server") == true, "\(external.problem ?? "")")

        var fanout = BenchOptions(scenario: .fanout)
        fanout.network = .kernel
        #expect(fanout.problem?.contains("fallback, bandwidth, simulcast") == true, "\(fanout.problem ?? "")")

        var publisherSide = BenchOptions(scenario: .fallback)
        publisherSide.network = .kernel
        publisherSide.impairedSubscribers = 0
        publisherSide.publisherSchedule = try ImpairmentSchedule(parsing: "3s:jitter=10ms,delay=20ms;11s:clean")
        #expect(publisherSide.problem?.contains("netem") == true)
    }

    /// Two subscribers' downlinks on one veth: the interface and the namespace are readied once, each
    /// link gets its own class; the steps of both come in time order, ties in the links' order.
    @Test func linksShareOnePreparedInterfaceAndTheirStepsComeInTimeOrder() throws {
        let schedule = try ImpairmentSchedule(parsing: "3s:loss=0.3;11s:clean")
        let links = try KernelShapedLinks(
            links: [
                KernelShapedLinks.Link(label: "s1", shaper: shaper(.toClient, port: 40_000, minor: 0x10), schedule: schedule),
                KernelShapedLinks.Link(label: "s2", shaper: shaper(.toClient, port: 40_002, minor: 0x11), schedule: schedule),
            ]) { _ in }
        let preparation = try links.preparation.map(\.description)
        #expect(preparation.count == 2 + 4 + 4)
        #expect(preparation[0] == "/usr/sbin/ip netns exec swy-4242-srv /usr/sbin/tc qdisc replace dev swy4242s root handle 1: htb default 0 direct_qlen 10000")
        #expect(preparation[1].hasPrefix("/usr/sbin/ip netns exec swy-4242-cli /usr/sbin/nft add table inet switchyard_shaper; add chain inet switchyard_shaper input { type filter hook input priority 0;"))
        #expect(preparation.filter { $0.contains("classid 1:11") }.count == 1)
        #expect(links.timeline.map { "\($0.seconds) \($0.link)" } == ["3.0 0", "3.0 1", "11.0 0", "11.0 1"])
    }

    /// One namespace's loopback, daemon and clients together (what a chaos run would cap): both
    /// directions queue on `lo` and drop at that namespace's own input.
    @Test func aShaperWorksOnAnyInterfaceIncludingOneNamespacesLoopback() throws {
        let loopback = KernelLinkShaper.Placement(egressNamespace: "chaos", egressInterface: "lo", ingressNamespace: "chaos", ingressInterface: "lo")
        let down = try KernelLinkShaper(port: 30_000, direction: .toClient, placement: loopback, classMinor: 0x20).install(impairment("rate=250kbps"))
        let up = try KernelLinkShaper(port: 30_000, direction: .fromClient, placement: loopback, classMinor: 0x21).install(impairment("rate=250kbps"))
        #expect(down[0].description.contains("exec chaos /usr/sbin/tc class add dev lo parent 1: classid 1:20"))
        #expect(up[2].description.contains("dev lo parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff match ip sport 30000"))
        #expect(down[3].description.contains("iifname \"lo\" udp dport 30000 jump to_30000") && up[3].description.contains("udp sport 30000 jump from_30000"))
        let unnamespaced = KernelLinkShaper.Placement(egressNamespace: nil, egressInterface: "lo", ingressNamespace: nil, ingressInterface: "lo")
        #expect(try KernelLinkShaper(port: 1, direction: .toClient, placement: unnamespaced, classMinor: 0x10).install(.clean)[0].executable == "/usr/sbin/tc")
    }

    @Test func theNetworkIsTwoNamespacesOnAPrivateSlash30AndTravelsToTheChildAsJSON() throws {
        let creation = network.creation.map(\.description)
        #expect(creation.contains("/usr/sbin/ip netns add swy-4242-srv") && creation.contains("/usr/sbin/ip netns add swy-4242-cli"))
        #expect(creation.contains("/usr/sbin/ip link add swy4242s netns swy-4242-srv type veth peer name swy4242c netns swy-4242-cli"))
        #expect(creation.contains("/usr/sbin/ip -n swy-4242-srv addr add 10.233.0.1/30 dev swy4242s"))
        #expect(creation.contains("/usr/sbin/ip -n swy-4242-cli addr add 10.233.0.2/30 dev swy4242c"))
        #expect(creation.contains("/usr/sbin/ip -n swy-4242-srv link set lo up") && creation.contains("/usr/sbin/ip -n swy-4242-cli link set lo up"))
        #expect(KernelNetwork(tag: 4_194_304).serverInterface.count <= 15, "interface names fit IFNAMSIZ")
        #expect(try JSONDecoder().decode(KernelNetwork.self, from: JSONEncoder().encode(network)) == network)
    }
}
