import MediaControl
import Signaling

/// What an edge serves for one router of another node: a router of its own, the plain transport the
/// relay leg arrives on (the ingress), the origin's producers relayed over it with their copies here,
/// and the subscribers' transports fed from them.
struct CascadeRoute {
    struct Key: Hashable {
        var origin: String
        var router: RouterID
    }

    var origin: ClusterNodeAddress
    var localRouter: RouterID
    var ingress: PlainTransportParameters
    /// The key the origin protects the leg with; the ingress was made to expect it.
    var legKey: SRTPParameters
    /// The origin's end of the leg, once it exists.
    var leg: TransportID?
    /// The copy here of each relayed producer of the origin.
    var relayed: [ProducerID: ProducerID] = [:]
    var transports: Set<TransportID> = []
}
