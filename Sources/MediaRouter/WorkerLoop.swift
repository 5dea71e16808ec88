/// How a worker waits for its sockets. Both wait on one epoll set over every socket the worker reads,
/// so a burst on many sockets costs one wake-up, and both drain each ready socket with `recvmmsg`;
/// they differ in who waits. `.epoll` is the default; docs/benchmark.md has the two compared.
public enum WorkerLoop: String, Sendable, CaseIterable {
    /// A serial DispatchQueue whose one read source watches the epoll set, a DispatchSourceTimer for
    /// the tick, control work as queue items (the design's media plane).
    case dispatch
    /// A thread of the worker's own blocked in `epoll_wait`, the tick as the wait's timeout, control
    /// work through a mailbox and an eventfd.
    case epoll
}
