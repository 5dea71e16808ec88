/// How a worker waits for its sockets. Every loop waits on one epoll set over all the sockets the
/// worker reads and drains each ready socket with `recvmmsg`; they differ in who waits and how often a
/// burst wakes a thread. docs/benchmark.md compares them.
public enum WorkerLoop: String, Sendable, CaseIterable {
    /// The default. A serial DispatchQueue whose one long-running item waits in `epoll_wait` on the
    /// worker's set, so a burst wakes one thread as the epoll thread's does; the tick is the wait's
    /// timeout, and control work is queued behind the item, with an eventfd that makes the wait
    /// return so the queue runs it.
    case dispatchWait = "dispatch-wait"
    /// A thread of the worker's own blocked in `epoll_wait`, the tick the wait's timeout, control work
    /// through a mailbox and an eventfd.
    case epoll
    /// A serial DispatchQueue whose one read source watches the epoll set, a DispatchSourceTimer for
    /// the tick, control work as queue items. On Linux libdispatch's manager thread receives the
    /// event and wakes a pool thread for the handler: two wake-ups per burst.
    case dispatch
}
