import Foundation
import Glibc

/// One reading of a process's CPU time and resident memory, from /proc (or getrusage for the
/// bench itself).
struct ProcessUsageSample: Sendable {
    var cpuSeconds: Double
    var rssMB: Double
    var at: UInt64

    /// Seconds since `pid` started, from its start time in /proc/<pid>/stat and the system's uptime;
    /// nil once it is gone.
    static func age(pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")"),
            let uptime = try? String(contentsOfFile: "/proc/uptime", encoding: .utf8),
            let systemSeconds = uptime.split(separator: " ").first.flatMap({ Double($0) })
        else { return nil }
        // Fields after the command name: state is field 3, starttime (in clock ticks since boot) 22.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let startTicks = Double(fields[19]) else { return nil }
        return systemSeconds - startTicks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Another process, from /proc/<pid>/stat and /proc/<pid>/status; nil once it is gone.
    static func read(pid: Int32, at now: UInt64) -> ProcessUsageSample? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name: state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let rssKB = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
            .flatMap { Double($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") } ?? 0
        return ProcessUsageSample(cpuSeconds: (user + system) / ticks, rssMB: rssKB / 1024, at: now)
    }

    /// Nanoseconds each living thread of `pid` has run, by thread id, with its name: the scheduler's
    /// own account (/proc/<pid>/task/*/schedstat), exact where /proc/<pid>/stat counts 10 ms ticks.
    /// Empty once the process is gone.
    static func threadCPU(pid: Int32) -> [Int: (name: String, nanoseconds: UInt64)] {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return [:] }
        var result: [Int: (name: String, nanoseconds: UInt64)] = [:]
        for thread in threads {
            guard let id = Int(thread), let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/schedstat", encoding: .utf8),
                let running = text.split(separator: " ").first.flatMap({ UInt64($0) })
            else { continue }
            let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/comm", encoding: .utf8)) ?? ""
            result[id] = (name.trimmingCharacters(in: .whitespacesAndNewlines), running)
        }
        return result
    }

    /// This process.
    static func current(at now: UInt64) -> ProcessUsageSample {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        let rss = read(pid: getpid(), at: now)?.rssMB ?? Double(usage.ru_maxrss) / 1024
        return ProcessUsageSample(cpuSeconds: cpu, rssMB: rss, at: now)
    }

    /// Usage between two readings, with the peak memory seen.
    static func usage(from start: ProcessUsageSample, to end: ProcessUsageSample, peakMB: Double) -> BenchReport.ProcessUsage {
        let seconds = Double(end.at - start.at) / 1e9
        let cpu = end.cpuSeconds - start.cpuSeconds
        return BenchReport.ProcessUsage(
            cpuSeconds: cpu, cpuPercent: seconds > 0 ? 100 * cpu / seconds : 0, rssStartMB: start.rssMB, rssEndMB: end.rssMB,
            rssPeakMB: max(peakMB, start.rssMB, end.rssMB))
    }
}
