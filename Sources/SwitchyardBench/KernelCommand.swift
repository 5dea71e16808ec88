import Dispatch
import Foundation
import Glibc

/// One `ip`, `tc` or `nft` invocation, run to its end as a child process, optionally inside a network
/// namespace (`ip netns exec`). Values, so a test can compare what a schedule turns into without
/// running anything.
public struct KernelCommand: Equatable, Sendable, CustomStringConvertible {
    public static let ip = "/usr/sbin/ip"
    public static let tc = "/usr/sbin/tc"
    public static let nft = "/usr/sbin/nft"

    public var executable: String
    public var arguments: [String]

    public init(_ executable: String, _ arguments: [String], inNamespace namespace: String? = nil) {
        if let namespace {
            self.executable = Self.ip
            self.arguments = ["netns", "exec", namespace, executable] + arguments
        } else {
            self.executable = executable
            self.arguments = arguments
        }
    }

    public var description: String { ([executable] + arguments).joined(separator: " ") }

    /// Runs the command to its end and returns its stdout; a failure names the command and its stderr.
    /// Blocks the calling thread: from async code, use `perform`.
    @discardableResult
    public func run() throws(KernelNetworkError) -> String {
        let directory = FileManager.default.temporaryDirectory.path
        let stdoutPath = "\(directory)/switchyard-kernel-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).out"
        let stderrPath = stdoutPath.replacingOccurrences(of: ".out", with: ".err")
        defer {
            unlink(stdoutPath)
            unlink(stderrPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw .cannotStart(command: description, reason: String(cString: strerror(spawned))) }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0, errno == EINTR {}
        let status = WaitStatus.exitCode(raw)
        let output = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw .commandFailed(command: description, status: status, stderr: (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
        }
        return output
    }

    /// Runs the commands in order on a queue of their own, never on the caller's thread (the media
    /// threads and the cooperative pool must not wait for a child process); stops at the first failure.
    static func perform(_ commands: [KernelCommand]) async throws(KernelNetworkError) {
        let result: Result<Void, KernelNetworkError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(KernelNetworkError) {
                    for command in commands { try command.run() }
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        try result.get()
    }

    private static let queue = DispatchQueue(label: "switchyard-bench.kernel-commands")
}
