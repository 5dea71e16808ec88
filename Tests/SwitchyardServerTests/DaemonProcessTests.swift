import Foundation
import Testing

/// The `switchyard` executable itself: exit statuses and signals.
@Suite(.serialized) struct DaemonProcessTests {
    /// The daemon binary, built beside the test bundle by `swift build --build-tests`.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("switchyard")
    }

    private func writeConfig(_ json: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-test-\(UUID().uuidString).json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func launch(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        return (process, errors)
    }

    @Test func aBadConfigurationExitsWith78BeforeBinding() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build the daemon first: swift build --build-tests")
        let path = try writeConfig(#"{"server":{"port":47811},"media":{"portRange":{"first":47900,"last":47800}}}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for arguments in [["--config", path], ["check-config", "--config", path]] {
            let (process, errors) = try launch(arguments)
            process.waitUntilExit()
            #expect(process.terminationStatus == 78)
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(message.contains("media.portRange: first (47900) is greater than last (47800)"))
        }
    }

    @Test func sigtermStopsTheDaemonWithStatusZero() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build the daemon first: swift build --build-tests")
        let path = try writeConfig(#"{"server":{"port":47812},"media":{"portRange":{"first":47820,"last":47830},"workers":1},"shutdown":{"drainSeconds":5}}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (process, _) = try launch(["--config", path])
        let listening = try await waitUntilListening(port: 47812)
        #expect(listening)
        let client = try await WebSocketTestClient.open(port: 47812)
        kill(process.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { process.terminate() }
        #expect(process.terminationStatus == 0)
        #expect(try await client.closeFrame() != nil)
    }

    /// Whether a TCP connection to `port` succeeds within ten seconds.
    private func waitUntilListening(port: Int) async throws -> Bool {
        for _ in 0..<200 {
            let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(socket)
            if result == 0 { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
