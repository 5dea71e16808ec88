import Foundation
import Glibc
import Synchronization

/// A private PostgreSQL for one test: initdb in a temporary directory, started on a free port on
/// 127.0.0.1 as the unprivileged `postgres` user (PostgreSQL refuses root), stopped and deleted after.
final class PostgresServer: Sendable {
    struct NotInstalled: Error, CustomStringConvertible {
        var description: String { "PostgreSQL is not installed (apt-get install postgresql; make test installs it)" }
    }

    let port: Int
    let directory: String
    private let binaries: String
    private let isStopped = Atomic<Bool>(false)

    /// The URL the nodes are configured with.
    var url: String { "postgres://switchyard@127.0.0.1:\(port)/postgres?sslmode=disable" }

    static func start() throws -> PostgresServer {
        guard let binaries = installedBinaries() else { throw NotInstalled() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if getuid() == 0 { try ChildProcess.run("/bin/chown", ["postgres:postgres", directory]) }
        try run(asPostgres: "\(binaries)/initdb", ["-D", "\(directory)/data", "-A", "trust", "-U", "switchyard", "--no-sync"])
        let server = PostgresServer(port: freeTCPPort(), directory: directory, binaries: binaries)
        StartedProcesses.register { server.stop() }
        try server.resume()
        return server
    }

    private init(port: Int, directory: String, binaries: String) {
        self.port = port
        self.directory = directory
        self.binaries = binaries
    }

    /// Starts the server (again), on the same port and data. Without fsync a commit costs a write
    /// to the page cache, and since each commit waits for that write (synchronous_commit stays on),
    /// `pause`, which stops the server as a crash would, loses nothing committed: an asynchronous
    /// commit there lost the cluster's schema when a test paused the server within 200 ms of it.
    func resume() throws {
        try Self.run(
            asPostgres: "\(binaries)/pg_ctl",
            [
                "-D", "\(directory)/data", "-l", "\(directory)/log", "-w", "-o",
                "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off", "start",
            ])
    }

    /// Stops the server at once, as a crash would (connections cut, no checkpoint).
    func pause() throws {
        try Self.run(asPostgres: "\(binaries)/pg_ctl", ["-D", "\(directory)/data", "-m", "immediate", "-w", "stop"])
    }

    /// Stops the server and deletes its files; later calls do nothing.
    func stop() {
        guard !isStopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try? Self.run(asPostgres: "\(binaries)/pg_ctl", ["-D", "\(directory)/data", "-m", "fast", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Rows of a query, as psql prints them unaligned (`|` between columns).
    func query(_ sql: String) throws -> [String] {
        let output = try Self.run(asPostgres: "\(binaries)/psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "switchyard", "-d", "postgres", "-At", "-c", sql])
        return output.split(separator: "\n").map(String.init)
    }

    /// The newest PostgreSQL's bin directory under /usr/lib/postgresql.
    private static func installedBinaries() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap { Int($0) }
        guard let newest = versions.max() else { return nil }
        let binaries = "\(root)/\(newest)/bin"
        return FileManager.default.isExecutableFile(atPath: "\(binaries)/pg_ctl") ? binaries : nil
    }

    @discardableResult
    private static func run(asPostgres executable: String, _ arguments: [String]) throws -> String {
        // From /tmp: the postgres user may not enter the test's working directory.
        let inTemporary = ["/bin/sh", "-c", #"cd /tmp && exec "$0" "$@""#, executable] + arguments
        return getuid() == 0
            ? try ChildProcess.run("/usr/sbin/runuser", ["-u", "postgres", "--"] + inTemporary)
            : try ChildProcess.run(inTemporary[0], Array(inTemporary.dropFirst()))
    }
}

/// A TCP port nothing listens on now, picked by the kernel.
func freeTCPPort(host: String = "127.0.0.1") -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    inet_pton(AF_INET, host, &address.sin_addr)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(descriptor, pointer, length)
            return getsockname(descriptor, pointer, &length)
        }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
