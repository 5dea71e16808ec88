/// Reads one JSON object of the configuration, key by key, and refuses keys nobody asked for.
struct ConfigurationReader {
    private let members: [String: JSONValue]
    let path: String
    private var read: Set<String> = []

    init(_ value: JSONValue, path: String) throws(ConfigurationError) {
        guard case .object(let members) = value else {
            throw ConfigurationError(keyPath: path, problem: "expected an object, found \(value.typeName)")
        }
        self.members = members
        self.path = path
    }

    func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The nested object at `key`, or an empty one when the key is absent.
    mutating func object(_ key: String) throws(ConfigurationError) -> ConfigurationReader {
        read.insert(key)
        return try ConfigurationReader(members[key] ?? .object([:]), path: keyPath(key))
    }

    /// The nested object at `key`, nil when absent or null.
    mutating func optionalObject(_ key: String) throws(ConfigurationError) -> ConfigurationReader? {
        read.insert(key)
        guard let value = members[key], value != .null else { return nil }
        return try ConfigurationReader(value, path: keyPath(key))
    }

    /// The objects of the array at `key`, each read with its index in its path; nil when absent or null.
    mutating func optionalObjects(_ key: String) throws(ConfigurationError) -> [ConfigurationReader]? {
        read.insert(key)
        switch members[key] {
        case nil, .null?: return nil
        case .array(let elements)?:
            var readers: [ConfigurationReader] = []
            for (index, element) in elements.enumerated() {
                readers.append(try ConfigurationReader(element, path: "\(keyPath(key))[\(index)]"))
            }
            return readers
        case let other?: throw ConfigurationError(keyPath: keyPath(key), problem: "expected an array of objects, found \(other.typeName)")
        }
    }

    /// A string that has a default: absent takes it, but null is an error rather than a silent default.
    mutating func string(_ key: String, default fallback: String) throws(ConfigurationError) -> String {
        if members[key] == .null {
            throw ConfigurationError(keyPath: keyPath(key), problem: "expected a string, found null")
        }
        return try optionalString(key) ?? fallback
    }

    mutating func optionalString(_ key: String) throws(ConfigurationError) -> String? {
        read.insert(key)
        switch members[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case let other?: throw ConfigurationError(keyPath: keyPath(key), problem: "expected a string, found \(other.typeName)")
        }
    }

    /// An array of strings, nil when absent or null; an element of another type is named by its index.
    mutating func optionalStrings(_ key: String) throws(ConfigurationError) -> [String]? {
        read.insert(key)
        switch members[key] {
        case nil, .null?: return nil
        case .array(let elements)?:
            var strings: [String] = []
            for (index, element) in elements.enumerated() {
                guard case .string(let text) = element else {
                    throw ConfigurationError(keyPath: "\(keyPath(key))[\(index)]", problem: "expected a string, found \(element.typeName)")
                }
                strings.append(text)
            }
            return strings
        case let other?: throw ConfigurationError(keyPath: keyPath(key), problem: "expected an array of strings, found \(other.typeName)")
        }
    }

    mutating func integer(_ key: String, default fallback: Int, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        read.insert(key)
        let value: Int
        switch members[key] {
        case nil: return fallback
        case .integer(let number)?: value = number
        case let other?: throw ConfigurationError(keyPath: keyPath(key), problem: "expected an integer, found \(other.typeName)")
        }
        guard range.contains(value) else {
            throw ConfigurationError(keyPath: keyPath(key), problem: "\(value) is out of range \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// A duration given in whole milliseconds (`key` ends in `Ms`), which must lie in `range`.
    mutating func milliseconds(_ key: String, default fallback: Duration, in range: ClosedRange<Int>) throws(ConfigurationError) -> Duration {
        .milliseconds(try integer(key, default: Int(fallback / .milliseconds(1)), in: range))
    }

    /// An integer that may be absent or null (nil), or else must lie in `range`.
    mutating func optionalInteger(_ key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let value = members[key], value != .null else {
            read.insert(key)
            return nil
        }
        return try integer(key, default: 0, in: range)
    }

    /// An integer that `null` turns off and a missing key leaves at `fallback`.
    mutating func nullableInteger(_ key: String, default fallback: Int, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let value = members[key] else {
            read.insert(key)
            return fallback
        }
        guard value != .null else {
            read.insert(key)
            return nil
        }
        return try integer(key, default: fallback, in: range)
    }

    mutating func boolean(_ key: String, default fallback: Bool) throws(ConfigurationError) -> Bool {
        read.insert(key)
        switch members[key] {
        case nil: return fallback
        case .bool(let value)?: return value
        case let other?: throw ConfigurationError(keyPath: keyPath(key), problem: "expected true or false, found \(other.typeName)")
        }
    }

    mutating func number(_ key: String, default fallback: Double, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
        read.insert(key)
        let value: Double
        switch members[key] {
        case nil: return fallback
        case .integer(let number)?: value = Double(number)
        case .number(let number)?: value = number
        case let other?: throw ConfigurationError(keyPath: keyPath(key), problem: "expected a number, found \(other.typeName)")
        }
        guard range.contains(value) else {
            throw ConfigurationError(keyPath: keyPath(key), problem: "\(value) is out of range \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// Refuses every key that was not read: a misspelt key must not silently fall back to a default.
    func finish(allowing ignored: Set<String> = []) throws(ConfigurationError) {
        let unknown = Set(members.keys).subtracting(read).subtracting(ignored).sorted()
        if let first = unknown.first {
            let expected = read.sorted().joined(separator: ", ")
            throw ConfigurationError(keyPath: keyPath(first), problem: "unknown key; expected one of \(expected)")
        }
    }
}
