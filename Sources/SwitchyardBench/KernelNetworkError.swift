import Foundation

/// Why a kernel-shaped network (`--network kernel`) could not be made, shaped or used.
public enum KernelNetworkError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A command (`ip`, `tc`, `nft`) exited with a failure; its whole command line and what it wrote
    /// to stderr.
    case commandFailed(command: String, status: Int32, stderr: String)
    /// A command could not be started at all.
    case cannotStart(command: String, reason: String)
    /// Namespaces, qdiscs and nftables need root.
    case notRoot
    /// An impairment the kernel cannot apply here, and why.
    case unsupportedImpairment(String)
    /// The description of the network the parent bench handed its child was unreadable.
    case unreadableLayout(String)

    public var description: String {
        switch self {
        case .commandFailed(let command, let status, let stderr):
            "`\(command)` exited with status \(status): \(stderr.isEmpty ? "(nothing on stderr)" : stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
        case .cannotStart(let command, let reason): "cannot start `\(command)`: \(reason)"
        case .notRoot: "--network kernel makes network namespaces, qdiscs and nftables rules: run the bench as root"
        case .unsupportedImpairment(let reason): "--network kernel: \(reason)"
        case .unreadableLayout(let text): "the kernel network handed to this bench is unreadable: \(text)"
        }
    }
}
