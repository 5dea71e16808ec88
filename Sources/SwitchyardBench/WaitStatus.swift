import Glibc

/// A raw `waitpid` status read the way a shell reports it, so every child the bench reaps (nodes,
/// PostgreSQL, `ip`/`tc`/`nft`) is judged by one rule.
enum WaitStatus {
    /// The exit code of a process that exited, or 128 + the signal that ended it.
    static func exitCode(_ raw: Int32) -> Int32 {
        raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
    }
}
