import Foundation
import Glibc

/// Commands and daemons the tests start with posix_spawn and wait for with waitpid: Foundation's
/// Process can miss the exit of a child when called from a test's task.
enum ChildProcess {
    struct Failed: Error, CustomStringConvertible {
        var command: String
        var status: Int32
        var output: String

        var description: String { "\(command) exited with \(status): \(output)" }
    }

    /// Runs a command to its end and returns its output, collected in a file: a server the command
    /// starts (pg_ctl) keeps the descriptors it was given, so a pipe would never reach its end.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-output-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let pid = try spawn(executable, arguments, output: outputPath)
        let status = wait(for: pid)
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else { throw Failed(command: ([executable] + arguments).joined(separator: " "), status: status, output: text) }
        return text
    }

    /// Starts a command with its output (stdout and stderr) appended to `output`.
    static func spawn(_ executable: String, _ arguments: [String], output: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        // The child starts with no signal blocked: a posix_spawn child inherits the mask of the
        // calling thread, and the test's threads (Dispatch's, the cooperative pool's) block most
        // signals, so a server that does not unblock them itself (coturn) would never see SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw Failed(command: executable, status: spawned, output: String(cString: strerror(spawned))) }
        return pid
    }

    /// Waits for `pid` to end; its exit status, or 128 + the signal that ended it.
    @discardableResult
    static func wait(for pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return exitStatus(status)
    }

    /// The exit status of `pid` if it has ended (and is reaped now), without waiting; nil while it runs.
    static func exitStatus(of pid: pid_t) -> Int32? {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        return exitStatus(status)
    }

    private static func exitStatus(_ status: Int32) -> Int32 {
        status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
