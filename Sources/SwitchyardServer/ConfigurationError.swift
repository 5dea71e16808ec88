/// Why a configuration was refused: the key path (`media.portRange.first`) and what is wrong with it.
public struct ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Dotted path of the offending key; empty for the document as a whole.
    public var keyPath: String
    public var problem: String

    public init(keyPath: String, problem: String) {
        self.keyPath = keyPath
        self.problem = problem
    }

    public var description: String {
        keyPath.isEmpty ? problem : "\(keyPath): \(problem)"
    }
}
