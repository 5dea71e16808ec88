import Foundation
import NIOSSL
import PostgresNIO

/// Where the cluster's PostgreSQL is, read from a `postgres://` URL.
public struct DatabaseAddress: Equatable, Sendable, CustomStringConvertible {
    public enum TLSMode: String, Equatable, Sendable, CaseIterable {
        case disable, prefer, require
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode

    /// Parses `postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]`;
    /// the error says which part is wrong.
    public init(url text: String) throws(ClusterError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme) else {
            throw .invalidDatabaseURL("must start with postgres:// (postgres://user:password@host:5432/database)")
        }
        guard let host = components.host, !host.isEmpty else { throw .invalidDatabaseURL("names no host") }
        guard let user = components.user, !user.isEmpty else { throw .invalidDatabaseURL("names no user (postgres://user@host/database)") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw .invalidDatabaseURL("names no database (postgres://user@host/database)") }
        var tls = TLSMode.prefer
        for item in components.queryItems ?? [] {
            guard item.name == "sslmode" else { throw .invalidDatabaseURL("has the parameter \"\(item.name)\"; only sslmode is read") }
            guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                throw .invalidDatabaseURL("sslmode \"\(item.value ?? "")\" is not one of disable, prefer, require")
            }
            tls = mode
        }
        self.host = host
        self.port = components.port ?? 5432
        self.user = user
        self.password = components.password
        self.database = database
        self.tls = tls
    }

    /// The URL without its password, for logs and errors.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)?sslmode=\(tls.rawValue)" }

    /// - Parameter applicationName: what PostgreSQL shows as the connections' `application_name`.
    func clientConfiguration(connectTimeout: Duration, applicationName: String) -> PostgresClient.Configuration {
        let tlsSetting: PostgresClient.Configuration.TLS =
            switch tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tlsSetting)
        configuration.options.connectTimeout = connectTimeout
        configuration.options.maximumConnections = 8
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        return configuration
    }
}
