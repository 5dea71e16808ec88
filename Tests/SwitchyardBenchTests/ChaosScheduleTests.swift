import Foundation
import Testing

@testable import SwitchyardBench

/// The chaos run's pure parts: which fault comes next and on what, when faults stop, the trends
/// the invariants judge, the options it refuses, and the frame its slow reader sends.
@Suite struct ChaosScheduleTests {
    private func schedule(outages: [Double] = [3, 12], caps: Bool = false) -> ChaosSchedule {
        ChaosSchedule(
            kinds: ChaosFaultKind.scheduled(caps: caps), nodes: 3, sessions: 2, clientsPerSession: 2, spacingSeconds: 4, outageSeconds: outages,
            capSeconds: 10,
            allowances: [.nodeKilled: 22, .nodeDrained: 6, .clientNetworkLost: 6, .databaseAway: 3, .nodeStopped: 6, .slowReader: 3, .clientCapped: 15])
    }

    @Test func faultsComeOneKindAfterAnotherAndNodeFaultsMeetEveryNode() {
        var schedule = schedule()
        var faults: [ChaosSchedule.Fault] = []
        while let fault = schedule.next(nowSeconds: 0, endSeconds: 1000), faults.count < 18 { faults.append(fault) }
        #expect(faults.prefix(6).map(\.kind) == ChaosFaultKind.scheduled(caps: false))
        #expect(!faults.contains { $0.kind == .clientCapped }, "no cap without --cap-kbps")
        #expect(faults.map(\.index) == Array(0..<18))
        // Kill, drain and stop take the nodes in turn, shifted by one each round.
        let kills = faults.filter { $0.kind == .nodeKilled }.map(\.target)
        #expect(kills == [0, 1, 2])
        #expect(faults.filter { $0.kind == .nodeDrained }.map(\.target) == [1, 2, 0])
        #expect(faults.filter { $0.kind == .nodeStopped }.map(\.target) == [2, 0, 1])
        // Outages take the next length each round, and the next session's next client.
        let outages = faults.filter { $0.kind == .clientNetworkLost }
        #expect(outages.map(\.seconds) == [3, 12, 3])
        #expect(outages.map(\.target) == [0, 1, 0])
        #expect(outages.map(\.client) == [0, 0, 1])
        #expect(faults.filter { $0.kind == .slowReader }.map(\.target) == [0, 1, 0])
        #expect(faults.first { $0.kind == .databaseAway }?.seconds == 10)
        #expect(faults.first { $0.kind == .nodeStopped }?.seconds == 5)
    }

    @Test func capsComeLastInTheRoundAndOnlyOnSubscribers() {
        var schedule = schedule(caps: true)
        var faults: [ChaosSchedule.Fault] = []
        while let fault = schedule.next(nowSeconds: 0, endSeconds: 1000), faults.count < 28 { faults.append(fault) }
        #expect(faults.prefix(7).map(\.kind) == ChaosFaultKind.allCases)
        let caps = faults.filter { $0.kind == .clientCapped }
        #expect(caps.count == 4)
        #expect(caps.allSatisfy { $0.seconds == 10 })
        // The next session each time; its subscribers (1 and 2) in turn, never its publisher (0).
        #expect(caps.map(\.target) == [0, 1, 0, 1])
        #expect(caps.map(\.client) == [1, 1, 2, 2])
        // The cap's 10 s with its 15 s allowance fit in 25 s, not in 24.
        var last = self.schedule(caps: true)
        for _ in 0..<6 { _ = last.next(nowSeconds: 0, endSeconds: 1000) }
        var late = last
        #expect(late.next(nowSeconds: 0, endSeconds: 24) == nil)
        #expect(last.next(nowSeconds: 0, endSeconds: 25)?.kind == .clientCapped)
    }

    @Test func webrtcRecoveryIsJudgedApartAndOnlyWhereThereWereWebRTCClients() {
        func fault(_ index: Int, _ kind: ChaosFaultKind, plain: Double?, webrtc: Double?, webrtcAllowance: Double) -> BenchReport.ChaosFault {
            var fault = BenchReport.ChaosFault(
                index: index, kind: kind.rawValue, target: "", startSeconds: 0, liftedSeconds: 0, recoveryMs: plain, allowanceMs: 6000)
            fault.webrtcAllowanceMs = webrtcAllowance
            fault.webrtcRecoveryMs = webrtc
            return fault
        }
        let faults = [
            fault(0, .nodeDrained, plain: 400, webrtc: 3000, webrtcAllowance: 16000),
            fault(1, .nodeDrained, plain: 500, webrtc: nil, webrtcAllowance: 16000),
            fault(2, .nodeStopped, plain: 100, webrtc: nil, webrtcAllowance: 0),
        ]
        let webrtc = ChaosInvariants.webrtcRecovery(of: faults)
        #expect(webrtc.keys.sorted() == [ChaosFaultKind.nodeDrained.rawValue], "a fault without WebRTC clients is not theirs to judge")
        #expect(webrtc[ChaosFaultKind.nodeDrained.rawValue]?.notRecovered == 1)
        #expect(webrtc[ChaosFaultKind.nodeDrained.rawValue]?.maxMs == 3000)
        #expect(webrtc[ChaosFaultKind.nodeDrained.rawValue]?.allowanceMs == 16000)
        let plain = ChaosInvariants.recovery(of: faults)
        #expect(plain[ChaosFaultKind.nodeDrained.rawValue]?.notRecovered == 0)

        var chaos = BenchReport.Chaos()
        chaos.recovery = plain
        chaos.webrtcRecovery = webrtc
        let checks = ChaosInvariants.checks(for: chaos)
        #expect(checks.first { $0.name.hasPrefix("nodeDrained") }?.met == true)
        #expect(checks.first { $0.name.hasPrefix("WebRTC clients, nodeDrained") }?.met == false, "one WebRTC client never decoded again")
    }

    @Test func aCapPassesWhenVideoGaveWayCameBackAndNobodyElseNoticed() {
        let good = BenchReport.ChaosCap(
            faultIndex: 6, target: "s0/subscriber-1", capKbps: 100, videoKbpsBefore: 150, videoKbpsCapped: 0, audioKbpsCapped: 30,
            videoDisabled: true, videoBackMs: 4000, othersWithoutMedia: [])
        #expect(good.gaveWay)
        var lowerLayer = good
        lowerLayer.videoDisabled = false
        lowerLayer.videoKbpsCapped = 60
        #expect(lowerLayer.gaveWay, "video under the cap is a lower layer")
        var stuck = lowerLayer
        stuck.videoKbpsCapped = 140
        #expect(!stuck.gaveWay, "video over the cap did not give way")
        var silent = good
        silent.audioKbpsCapped = 0
        #expect(!silent.gaveWay, "the audio must go on under the cap")

        var chaos = BenchReport.Chaos()
        var neverBack = good
        neverBack.videoBackMs = nil
        var noisy = good
        noisy.othersWithoutMedia = ["s1/subscriber-2"]
        chaos.caps = [good, stuck, neverBack, noisy]
        let checks = Dictionary(uniqueKeysWithValues: ChaosInvariants.checks(for: chaos).map { ($0.name, $0) })
        #expect(checks["caps under which the subscriber's video did not give way while its audio went on"]?.measured == "1")
        #expect(checks["caps after which the subscriber's video did not come back"]?.measured == "1")
        #expect(checks["other clients without media during a cap"]?.met == false)
    }

    @Test func theWebRTCPeersLinesAreReadAsTheyCome() {
        var state = ChaosWebRTCClient.State()
        ChaosWebRTCClient.apply(ChaosWebRTCLine(#"{"event": "subscribed", "url": "ws://127.0.0.3:7912/v1/ws", "streamId": "st_a", "port": 40000}"#), to: &state, now: 10)
        ChaosWebRTCClient.apply(ChaosWebRTCLine(#"{"event": "frames", "video": 3, "audio": 5}"#), to: &state, now: 20)
        #expect(state.lastMediaAt == 20 && state.subscriptions == 1 && state.url == "ws://127.0.0.3:7912/v1/ws")
        // The same totals again are no new media.
        ChaosWebRTCClient.apply(ChaosWebRTCLine(#"{"event": "frames", "video": 3, "audio": 5}"#), to: &state, now: 30)
        #expect(state.lastMediaAt == 20)
        ChaosWebRTCClient.apply(ChaosWebRTCLine(#"{"event": "lost", "reason": "connect again: the WebSocket closed"}"#), to: &state, now: 40)
        #expect(state.losses == ["connect again: the WebSocket closed"])
        #expect(ChaosWebRTCLine("not json") == nil)
        #expect(ChaosWebRTCLine(#"{"event": "frames", "video": "three"}"#) == nil)
        #expect(ChaosWebRTCLine(#"{"event": "other"}"#) == nil)
    }

    @Test func aWebRTCClientDecodesAgainWhenItsFramesRanTwoSecondsWithoutAGap() {
        let ms: UInt64 = 1_000_000
        var state = ChaosWebRTCClient.State()
        var total = 0
        func frames(at milliseconds: UInt64) {
            total += 3
            ChaosWebRTCClient.apply(.frames(total), to: &state, now: milliseconds * ms)
        }
        // Frames every 200 ms from 1 s; the fault lifted at 5 s never broke them.
        for at in stride(from: 1000 as UInt64, through: 7000, by: 200) { frames(at: at) }
        #expect(ChaosWebRTCClient.resumed(state: state, since: 5000 * ms, now: 6900 * ms) == nil, "not 2 s after the lift yet")
        #expect(ChaosWebRTCClient.resumed(state: state, since: 5000 * ms, now: 7000 * ms) == 5000 * ms, "unbroken: back at the lift")
        // A fault lifted at 7.1 s: the decoder still empties itself until 7.2 s, then nothing until 9 s.
        frames(at: 7200)
        #expect(ChaosWebRTCClient.resumed(state: state, since: 7100 * ms, now: 9100 * ms) == nil, "frames just after the lift are no recovery")
        for at in stride(from: 9000 as UInt64, through: 10_800, by: 200) { frames(at: at) }
        #expect(ChaosWebRTCClient.resumed(state: state, since: 7100 * ms, now: 10_800 * ms) == nil, "a run of 1.8 s is not steady yet")
        frames(at: 11_000)
        #expect(ChaosWebRTCClient.resumed(state: state, since: 7100 * ms, now: 11_000 * ms) == 9000 * ms, "back when the run began")
        #expect(ChaosWebRTCClient.resumed(state: state, since: 7100 * ms, now: 11_700 * ms) == nil, "a gap of 600 ms is no media now")
    }

    @Test func aFaultThatCannotFinishBeforeTheEndIsNotStarted() {
        var schedule = schedule()
        // A kill needs its allowance of 22 s: not with 20 s left.
        #expect(schedule.next(nowSeconds: 100, endSeconds: 120) == nil)
        #expect(schedule.next(nowSeconds: 100, endSeconds: 122)?.kind == .nodeKilled)
        // The 3 s outage with its 6 s allowance fits in 9 s, not in 8.
        #expect(schedule.next(nowSeconds: 0, endSeconds: 8) == nil)
        #expect(schedule.next(nowSeconds: 0, endSeconds: 9)?.kind == .clientNetworkLost)
    }

    @Test func trendsSumDescriptorsOverNodesAndJudgeMemoryPerProcessAfterItsWarmUp() {
        var samples: [BenchReport.ChaosResourceSample] = []
        // Before the first fault, then 16 faults 20 s apart: descriptors move between the nodes but
        // their sum stays; node 0's memory climbs 1 MB a fault all along, node 1's only in its first
        // 150 s, and by 6 MB right after the slow reader of fault 13, which it holds until it cuts
        // the reader off.
        for fault in -1..<16 {
            let age = 20 * Double(fault + 1)
            samples.append(
                BenchReport.ChaosResourceSample(
                    afterFault: fault, node: 0, pid: 10, ageSeconds: age, rssMB: 60 + Double(fault), descriptors: 40 + fault % 2, udpSockets: 5))
            let warming = age < ChaosInvariants.rssWarmUpSeconds ? 50 + age / 30 : 55
            samples.append(
                BenchReport.ChaosResourceSample(
                    afterFault: fault, node: 1, pid: 11, ageSeconds: age, rssMB: fault == 13 ? 61 : warming, descriptors: 40 - fault % 2, udpSockets: 5))
        }
        let trends = ChaosInvariants.trends(of: samples, nodeNames: ["a", "b"], retainingFaults: [13])
        #expect(trends.descriptorsPerFault.map { abs($0) < 1e-9 } == true, "\(String(describing: trends.descriptorsPerFault))")
        #expect(trends.udpSocketsPerFault.map { abs($0) < 1e-9 } == true)
        #expect(trends.rssSeriesJudged == 2)
        #expect(trends.rssMBPerFault.map { abs($0 - 1) < 1e-9 } == true, "\(String(describing: trends.rssMBPerFault))")
        #expect(trends.rssSteepestNode == "a pid 10 (8 samples judged)")
        // Within the processes, pooled: one climbing 1 MB a fault and one flat over the same faults.
        #expect(trends.rssProcessesPooled == 2)
        #expect(trends.rssMBPerFaultWithinProcesses.map { abs($0 - 0.5) < 1e-9 } == true, "\(String(describing: trends.rssMBPerFaultWithinProcesses))")
        // Node 1 alone, without the slow reader left out: its spike alone would be a slope.
        let withSpike = ChaosInvariants.trends(of: samples.filter { $0.node == 1 }.map { var sample = $0; sample.node = 0; return sample }, nodeNames: ["b"])
        #expect(withSpike.rssMBPerFault.map { $0 > 0.1 } == true, "\(String(describing: withSpike.rssMBPerFault))")
        let flat = ChaosInvariants.trends(of: samples.filter { $0.node == 1 }.map { var sample = $0; sample.node = 0; return sample }, nodeNames: ["b"], retainingFaults: [13])
        #expect(flat.rssMBPerFault.map { abs($0) < 1e-9 } == true, "\(String(describing: flat.rssMBPerFault))")
        let checks = ChaosInvariants.checks(for: BenchReport.Chaos(trends: trends))
        #expect(checks.first { $0.name.hasPrefix("node RSS") }?.met == false)
        #expect(checks.first { $0.name.hasPrefix("descriptors") }?.met == true)
    }

    @Test func chaosOptionsThatCannotWorkAreRefusedNamingTheOption() {
        var options = BenchOptions(scenario: .chaos)
        options.clusterURLs = ["ws://127.0.0.2:7911/v1/ws", "ws://127.0.0.3:7912/v1/ws"]
        options.serverURL = options.clusterURLs[0]
        options.nodePIDs = [100, 101]
        #expect(options.problem == nil, "\(options.problem ?? "")")
        #expect(options.clients == 2 && options.sessions == 3)

        var missing = options
        missing.nodePIDs = [100]
        #expect(missing.problem?.contains("--node-pid") == true)
        var halfDatabase = options
        halfDatabase.postgresStopCommand = "pg_ctl stop"
        #expect(halfDatabase.problem?.contains("--postgres-stop and --postgres-start") == true)
        var longOutage = options
        longOutage.outageSeconds = [3, 45]
        #expect(longOutage.problem?.contains("--outages") == true)
        var tightSpacing = options
        tightSpacing.faultSpacingSeconds = 1
        #expect(tightSpacing.problem?.contains("--fault-spacing") == true)
        var tooManyWebRTC = options
        tooManyWebRTC.webrtcClients = 4
        tooManyWebRTC.aiortcPeer = "Tests/Interop/aiortc_peer.py"
        #expect(tooManyWebRTC.problem?.contains("--webrtc-clients must be within 0...3") == true)
        var negativeWebRTC = tooManyWebRTC
        negativeWebRTC.webrtcClients = -1
        #expect(negativeWebRTC.problem?.contains("--webrtc-clients") == true)
        var webrtcWithoutPeer = options
        webrtcWithoutPeer.webrtcClients = 2
        #expect(webrtcWithoutPeer.problem?.contains("--aiortc-peer") == true)
        var webrtc = webrtcWithoutPeer
        webrtc.aiortcPeer = "Tests/Interop/aiortc_peer.py"
        #expect(webrtc.problem == nil)
        var tinyCap = options
        tinyCap.capKbps = 10
        #expect(tinyCap.problem?.contains("--cap-kbps") == true)
        var cap = options
        cap.capKbps = 100
        #expect(cap.problem == nil)
        var longCap = cap
        longCap.capSeconds = 90
        #expect(longCap.problem?.contains("--cap-seconds") == true)
        var badInterface = cap
        badInterface.capInterface = "lo; rm"
        #expect(badInterface.problem?.contains("--cap-interface") == true)
        var oneNode = options
        oneNode.clusterURLs = [options.clusterURLs[0]]
        oneNode.nodePIDs = [100]
        #expect(oneNode.problem?.contains("--server") == true)
    }

    @Test func theSlowReadersFrameIsAMaskedTextFrame() {
        for payload in [Array("{}".utf8), [UInt8](repeating: 0x61, count: 300)] {
            let frame = StalledWebSocket.maskedTextFrame(payload)
            #expect(frame[0] == 0x81, "FIN and opcode 1 (text)")
            #expect(frame[1] & 0x80 == 0x80, "a client's frames are masked")
            let (length, maskAt) = frame[1] & 0x7F == 126 ? (Int(frame[2]) << 8 | Int(frame[3]), 4) : (Int(frame[1] & 0x7F), 2)
            #expect(length == payload.count)
            let mask = Array(frame[maskAt..<(maskAt + 4)])
            let unmasked = frame[(maskAt + 4)...].enumerated().map { $0.element ^ mask[$0.offset % 4] }
            #expect(unmasked == payload)
        }
    }
}
