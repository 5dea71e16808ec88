/// A media-loop object carried across threads. The loop's thread is the only one that touches what
/// is inside; other threads only hand it back to `MediaLoop.perform` or `run`.
struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    let value: Value
}
