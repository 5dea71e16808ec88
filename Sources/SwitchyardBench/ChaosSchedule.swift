/// Which fault comes next, and on what: the kinds in `ChaosFaultKind` order, round and round, each
/// node fault on the next node in turn (the run may aim it at the node serving the next session
/// instead), each client outage on the next client for the next length, each cap on the next
/// subscriber.
/// A fault starts only once the one before has recovered and `spacingSeconds` have passed, and only
/// when it can finish (its own length plus its recovery allowance) before the run ends, so faults
/// stop by themselves.
struct ChaosSchedule: Sendable {
    struct Fault: Sendable, Equatable {
        var index: Int
        var kind: ChaosFaultKind
        /// The node a node fault targets (an index into the nodes), or the session a client fault
        /// targets (an index into the sessions).
        var target: Int
        /// Of the client in that session a client fault targets.
        var client: Int
        /// How long the fault lasts before it is lifted (0 for a kill or a drain, which are instants).
        var seconds: Double
    }

    let kinds: [ChaosFaultKind]
    let nodes: Int
    let sessions: Int
    let clientsPerSession: Int
    let spacingSeconds: Double
    /// Client outages cycle through these lengths (the 1–30 s).
    let outageSeconds: [Double]
    let databaseAwaySeconds: Double
    let nodeStopSeconds: Double
    let slowReaderSeconds: Double
    let capSeconds: Double
    /// The most a fault of each kind may take to recover, after it is lifted.
    let allowances: [ChaosFaultKind: Double]
    private(set) var issued = 0
    private var nodeTurn = 0
    /// Outages and slow readers take the sessions in turns of their own, so that each kind meets
    /// every session whatever their number.
    private var clientTurns: [ChaosFaultKind: Int] = [:]

    init(
        kinds: [ChaosFaultKind], nodes: Int, sessions: Int, clientsPerSession: Int, spacingSeconds: Double, outageSeconds: [Double],
        databaseAwaySeconds: Double = 10, nodeStopSeconds: Double = 5, slowReaderSeconds: Double = 15, capSeconds: Double = 12,
        allowances: [ChaosFaultKind: Double]
    ) {
        self.kinds = kinds
        self.nodes = nodes
        self.sessions = sessions
        self.clientsPerSession = clientsPerSession
        self.spacingSeconds = spacingSeconds
        self.outageSeconds = outageSeconds
        self.databaseAwaySeconds = databaseAwaySeconds
        self.nodeStopSeconds = nodeStopSeconds
        self.slowReaderSeconds = slowReaderSeconds
        self.capSeconds = capSeconds
        self.allowances = allowances
    }

    /// The next fault, if it fits before `endSeconds` when started at `nowSeconds` (run-relative);
    /// nil when no fault can finish in time any more.
    mutating func next(nowSeconds: Double, endSeconds: Double) -> Fault? {
        guard !kinds.isEmpty else { return nil }
        let kind = kinds[issued % kinds.count]
        let seconds: Double =
            switch kind {
            case .nodeKilled, .nodeDrained: 0
            case .clientNetworkLost: outageSeconds[(issued / kinds.count) % outageSeconds.count]
            case .databaseAway: databaseAwaySeconds
            case .nodeStopped: nodeStopSeconds
            case .slowReader: slowReaderSeconds
            case .clientCapped: capSeconds
            }
        guard nowSeconds + seconds + (allowances[kind] ?? 0) <= endSeconds else { return nil }
        var fault = Fault(index: issued, kind: kind, target: 0, client: 0, seconds: seconds)
        if kind.targetsNode {
            // Shifted by one each round, so every node meets every kind of node fault.
            fault.target = (nodeTurn + issued / kinds.count) % nodes
            nodeTurn += 1
        } else if kind == .clientNetworkLost || kind == .slowReader {
            let turn = clientTurns[kind, default: 0]
            fault.target = turn % sessions
            fault.client = (turn / sessions) % (clientsPerSession + 1)
            clientTurns[kind] = turn + 1
        } else if kind == .clientCapped {
            // Subscribers only (a session's clients after its publisher): a cap is on a downlink.
            let turn = clientTurns[kind, default: 0]
            fault.target = turn % sessions
            fault.client = 1 + (turn / sessions) % clientsPerSession
            clientTurns[kind] = turn + 1
        }
        issued += 1
        return fault
    }
}
