import Foundation

/// A peer program outside this process (an aiortc client, a Selenium-driven Chromium), run to the end
/// with a deadline. Output goes to files, so a chatty peer can never block on a full pipe.
struct InteropProcess {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Outcome {
        var status: Int32
        var output: String
        var errors: String

        /// The last line of standard output, which the peers print as one JSON object.
        var report: [String: Any] {
            guard let line = output.split(separator: "\n").last,
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else { return [:] }
            return object
        }
    }

    let process = Process()
    private let outputFile: URL
    private let errorFile: URL

    /// Starts `Tests/Interop/<script>` with `python` (the first python3 on the PATH, where pip put
    /// aiortc; Debian's own, /usr/bin/python3, for the GStreamer bindings), behind `prefix` when given
    /// (`ip netns exec NAME`, to run it in an `IsolatedNetwork`).
    init(script: String, arguments: [String], python: String = "python3", prefix: [String] = []) throws {
        let directory = FileManager.default.temporaryDirectory
        outputFile = directory.appendingPathComponent("interop-\(UUID().uuidString).out")
        errorFile = directory.appendingPathComponent("interop-\(UUID().uuidString).err")
        for file in [outputFile, errorFile] where !FileManager.default.createFile(atPath: file.path, contents: nil) {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        process.executableURL = URL(fileURLWithPath: prefix.first ?? "/usr/bin/env")
        process.arguments = prefix.dropFirst() + (prefix.isEmpty ? [] : ["/usr/bin/env"])
            + [python, Self.repositoryRoot.appendingPathComponent("Tests/Interop/\(script)").path] + arguments
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
    }

    /// Waits for the peer to exit, ending it (by its PID) when `deadline` passes first.
    func finish(within deadline: Duration) async -> Outcome {
        let end = ContinuousClock.now + deadline
        while process.isRunning, ContinuousClock.now < end {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        defer {
            try? FileManager.default.removeItem(at: outputFile)
            try? FileManager.default.removeItem(at: errorFile)
        }
        return Outcome(
            status: process.terminationStatus, output: (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "",
            errors: (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "")
    }
}
