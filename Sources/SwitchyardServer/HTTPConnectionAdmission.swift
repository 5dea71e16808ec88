import Synchronization

/// Counts open HTTP connections, in all and per remote address, and refuses one past either cap, so
/// a flood of connections from one place cannot take the descriptors everyone else needs.
final class HTTPConnectionAdmission: Sendable {
    enum Refusal: Equatable {
        case serverFull(limit: Int)
        case addressFull(limit: Int)
    }

    private struct State {
        var total = 0
        var perAddress: [String: Int] = [:]
    }

    let maximumConnections: Int
    let maximumPerAddress: Int
    private let state = Mutex(State())

    init(maximumConnections: Int, maximumPerAddress: Int) {
        self.maximumConnections = maximumConnections
        self.maximumPerAddress = maximumPerAddress
    }

    /// Admits a connection from `address`, or says which cap it hit. Every admission is released once.
    func admit(_ address: String) -> Refusal? {
        state.withLock { state in
            guard state.total < maximumConnections else { return .serverFull(limit: maximumConnections) }
            let fromAddress = state.perAddress[address, default: 0]
            guard fromAddress < maximumPerAddress else { return .addressFull(limit: maximumPerAddress) }
            state.total += 1
            state.perAddress[address] = fromAddress + 1
            return nil
        }
    }

    func release(_ address: String) {
        state.withLock { state in
            state.total -= 1
            let left = state.perAddress[address, default: 1] - 1
            state.perAddress[address] = left == 0 ? nil : left
        }
    }

    /// Connections open now.
    var open: Int { state.withLock { $0.total } }
}
