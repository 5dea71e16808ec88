import Foundation
import Glibc
import Synchronization

/// A child started through `/bin/sh -c`, reaped with `waitpid` by this object alone: the chaos run
/// starts nodes again and stops and starts PostgreSQL with it, and needs to know for certain when
/// each has exited (Foundation's `Process` left a finished shell unreaped here).
final class ShellProcess: Sendable {
    let pid: Int32
    private let status = Mutex<Int32?>(nil)

    init(command: String) throws(BenchError) {
        var pid: pid_t = 0
        let words: [String] = ["/bin/sh", "-c", command]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let environment: [UnsafeMutablePointer<CChar>?] = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (arguments + environment).forEach { free($0) } }
        Self.keepDescriptorsFromChildren()
        let result = posix_spawn(&pid, "/bin/sh", nil, nil, arguments, environment)
        guard result == 0 else { throw .setupFailed("/bin/sh -c \(command): \(String(cString: strerror(result)))") }
        self.pid = pid
    }

    /// The exit status (128 + the signal for a signalled process), or nil while it runs.
    var exitStatus: Int32? {
        status.withLock { status in
            if status == nil {
                var raw: Int32 = 0
                let reaped = waitpid(pid, &raw, WNOHANG)
                if reaped == pid {
                    status = WaitStatus.exitCode(raw)
                } else if reaped < 0 {
                    status = -1
                }
            }
            return status
        }
    }

    var isRunning: Bool { exitStatus == nil }

    func waitForExit() async -> Int32 {
        while true {
            if let exitStatus { return exitStatus }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Marks every descriptor of the bench past stderr close-on-exec, so nothing of its own (its
    /// clients' sockets above all) lives on in a node or a PostgreSQL it starts.
    private static func keepDescriptorsFromChildren() {
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for descriptor in descriptors.compactMap({ Int32($0) }) where descriptor > 2 {
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// `word` quoted for the shell.
    static func quote(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
