/// Why an impairment or schedule text was refused; each case names the offending part.
public enum ImpairmentParseError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformedSetting(String)
    case unknownSetting(String)
    case badNumber(key: String, value: String)
    case invalidValue(String)
    case malformedStep(String)
    case stepsOutOfOrder(String)

    public var description: String {
        switch self {
        case .malformedSetting(let part): "impairment setting \"\(part)\" is not key=value"
        case .unknownSetting(let key): "unknown impairment setting \"\(key)\" (use loss, burst, delay, jitter, rate, queue)"
        case .badNumber(let key, let value): "impairment \(key): \"\(value)\" is not a number with the expected unit"
        case .invalidValue(let problem): "impairment: \(problem)"
        case .malformedStep(let step): "schedule step \"\(step)\" is not <seconds>s:<impairment>"
        case .stepsOutOfOrder(let step): "schedule step \"\(step)\" starts before the step ahead of it"
        }
    }
}
