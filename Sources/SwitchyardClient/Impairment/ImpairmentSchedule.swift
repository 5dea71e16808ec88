/// Impairments that change over time: each step starts at an offset from the start of the run and
/// lasts until the next one. Before the first step the path is clean.
public struct ImpairmentSchedule: Codable, Equatable, Sendable, CustomStringConvertible {
    public struct Step: Codable, Equatable, Sendable {
        public var startSeconds: Double
        public var impairment: NetworkImpairment

        public init(startSeconds: Double, impairment: NetworkImpairment) {
            self.startSeconds = startSeconds
            self.impairment = impairment
        }
    }

    public var steps: [Step]

    public init(steps: [Step]) {
        self.steps = steps
    }

    public static let clean = ImpairmentSchedule(steps: [])

    /// Steps separated by `;`, each `<seconds>s:<impairment>`, in order, for example
    /// `5s:loss=0.3;15s:clean`.
    public init(parsing text: String) throws(ImpairmentParseError) {
        var steps: [Step] = []
        for part in text.split(separator: ";") {
            let step = String(part).trimmingWhitespace
            guard let colon = step.firstIndex(of: ":") else { throw .malformedStep(step) }
            let offset = String(step[..<colon]).trimmingWhitespace
            guard offset.hasSuffix("s"), let seconds = Double(offset.dropLast()), seconds >= 0, seconds.isFinite else {
                throw .malformedStep(step)
            }
            if let last = steps.last, last.startSeconds >= seconds { throw .stepsOutOfOrder(step) }
            steps.append(Step(startSeconds: seconds, impairment: try NetworkImpairment(parsing: String(step[step.index(after: colon)...]))))
        }
        self.init(steps: steps)
    }

    /// The impairment in force `elapsedSeconds` after the start.
    public func impairment(atSeconds elapsedSeconds: Double) -> NetworkImpairment {
        steps.last { $0.startSeconds <= elapsedSeconds }?.impairment ?? .clean
    }

    /// Seconds after the start of the first step with loss, and of the first clean step after it;
    /// what a fallback run measures its timings from.
    public var firstDegradation: (start: Double, end: Double?)? { degradations.first }

    /// Every impaired spell in order: the start of a step with an impairment after a clean one (or
    /// the start), and of the next clean step (nil when none follows).
    public var degradations: [(start: Double, end: Double?)] {
        var spells: [(start: Double, end: Double?)] = []
        var openSince: Double?
        for step in steps {
            if step.impairment.isClean {
                if let since = openSince { spells.append((since, step.startSeconds)) }
                openSince = nil
            } else if openSince == nil {
                openSince = step.startSeconds
            }
        }
        if let since = openSince { spells.append((since, nil)) }
        return spells
    }

    public var description: String {
        steps.isEmpty ? "clean" : steps.map { "\(Self.format($0.startSeconds))s:\($0.impairment)" }.joined(separator: ";")
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
