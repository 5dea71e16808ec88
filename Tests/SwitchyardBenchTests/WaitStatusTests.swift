import Testing

@testable import SwitchyardBench

/// The bench's two ways of running a child report its end alike: an exit code as it is, a signal
/// as 128 + its number, the way a shell does.
@Suite struct WaitStatusTests {
    @Test(arguments: [("exit 0", Int32(0)), ("exit 3", 3), ("kill -9 $$", 137)])
    func aShellProcessAndAKernelCommandReportTheSameEnd(script: String, expected: Int32) async throws {
        let shell = try ShellProcess(command: script)
        #expect(await shell.waitForExit() == expected)

        do {
            try KernelCommand("/bin/sh", ["-c", script]).run()
            #expect(expected == 0)
        } catch {
            guard case .commandFailed(_, let status, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(status == expected)
        }
    }
}
