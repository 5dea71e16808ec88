import Foundation
import Testing

@testable import SwitchyardBench

/// The chaos run's pure parts: which fault comes next and on what, when faults stop, the trends
/// the invariants judge, the options it refuses, and the frame its slow reader sends.
@Suite struct ChaosScheduleTests {
    private func schedule(outages: [Double] = [3, 12]) -> ChaosSchedule {
        ChaosSchedule(
            kinds: ChaosFaultKind.allCases, nodes: 3, sessions: 2, clientsPerSession: 2, spacingSeconds: 4, outageSeconds: outages,
            allowances: [.nodeKilled: 22, .nodeDrained: 6, .clientNetworkLost: 6, .databaseAway: 3, .nodeStopped: 6, .slowReader: 3])
    }

    @Test func faultsComeOneKindAfterAnotherAndNodeFaultsMeetEveryNode() {
        var schedule = schedule()
        var faults: [ChaosSchedule.Fault] = []
        while let fault = schedule.next(nowSeconds: 0, endSeconds: 1000), faults.count < 18 { faults.append(fault) }
        #expect(faults.prefix(6).map(\.kind) == ChaosFaultKind.allCases)
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
        // Before the first fault, then nine faults: descriptors move between the nodes but their sum
        // stays; node 0's memory climbs 1 MB a fault, node 1's only during its two warm-up samples.
        for fault in -1..<9 {
            samples.append(BenchReport.ChaosResourceSample(afterFault: fault, node: 0, pid: 10, rssMB: 60 + Double(fault), descriptors: 40 + fault % 2, udpSockets: 5))
            samples.append(BenchReport.ChaosResourceSample(afterFault: fault, node: 1, pid: 11, rssMB: fault < 1 ? 50 + Double(fault) * 5 : 55, descriptors: 40 - fault % 2, udpSockets: 5))
        }
        let trends = ChaosInvariants.trends(of: samples, nodeNames: ["a", "b"])
        #expect(trends.descriptorsPerFault.map { abs($0) < 1e-9 } == true, "\(String(describing: trends.descriptorsPerFault))")
        #expect(trends.udpSocketsPerFault.map { abs($0) < 1e-9 } == true)
        #expect(trends.rssSeriesJudged == 2)
        #expect(trends.rssMBPerFault.map { abs($0 - 1) < 1e-9 } == true, "\(String(describing: trends.rssMBPerFault))")
        #expect(trends.rssSteepestNode?.hasPrefix("a pid 10") == true)
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
