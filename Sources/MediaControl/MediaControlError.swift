/// Why the media plane refused a control request.
public enum MediaControlError: Error, Equatable, Sendable, Codable {
    case unknownRouter(RouterID)
    case unknownTransport(TransportID)
    case unknownProducer(ProducerID)
    case unknownConsumer(ConsumerID)
    /// Every port of the configured range is in use.
    case noFreePort(lowest: UInt16, highest: UInt16)
    /// The producer and the consumer's transport belong to different routers.
    case differentRouters(ProducerID, TransportID)
    /// Another producer on the transport already sends with this SSRC.
    case ssrcInUse(UInt32)
    /// A parameter of a client's request the media plane cannot use, and why; signaling names the
    /// request field it came from.
    case invalidParameter(MediaParameter, problem: String)
    /// Parameters the media plane cannot use, not of a client's making; `reason` names them.
    case invalidParameters(reason: String)
    /// A system call failed; `call` names it and `errno` is the system's code.
    case system(call: String, errno: Int32)
    /// In a cluster: `node` is shutting down and takes no new work for other nodes.
    case shuttingDown(node: String)
    /// The worker that would forward to a new subscriber is at its capacity (overload shedding);
    /// `reason` says by which measure.
    case overloaded(worker: Int, reason: String)
}
