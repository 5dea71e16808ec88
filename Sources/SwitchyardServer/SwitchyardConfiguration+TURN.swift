import Signaling

extension SwitchyardConfiguration {
    /// Reads `turn`: required `urls` (stun:, turn:, turns:) and `sharedSecret` (coturn's
    /// `static-auth-secret`), and `credentialLifetimeSeconds`.
    static func turn(_ reader: inout ConfigurationReader) throws(ConfigurationError) -> TURNConfiguration {
        guard let texts = try reader.optionalStrings("urls") else {
            throw ConfigurationError(
                keyPath: reader.keyPath("urls"), problem: "is required with turn: the stun:, turn: and turns: URLs clients are given")
        }
        guard !texts.isEmpty else {
            throw ConfigurationError(keyPath: reader.keyPath("urls"), problem: "must list at least one stun:, turn: or turns: URL")
        }
        var urls: [ICEServerURL] = []
        for (index, text) in texts.enumerated() {
            do {
                urls.append(try ICEServerURL(parsing: text))
            } catch {
                throw ConfigurationError(keyPath: "\(reader.keyPath("urls"))[\(index)]", problem: "\"\(text)\": \(error)")
            }
        }
        guard let secret = try reader.optionalString("sharedSecret") else {
            throw ConfigurationError(
                keyPath: reader.keyPath("sharedSecret"), problem: "is required with turn: the TURN server's static-auth-secret")
        }
        // The same floor as the API secret's: it keys an HMAC that lets anyone holding it relay
        // through the TURN server.
        guard secret.utf8.count >= minimumSecretBytes else {
            throw ConfigurationError(
                keyPath: reader.keyPath("sharedSecret"),
                problem: "is \(secret.utf8.count) bytes; it must be at least \(minimumSecretBytes) (use 32 random bytes, e.g. `openssl rand -hex 32`)")
        }
        let lifetime = try reader.integer(
            "credentialLifetimeSeconds", default: TURNConfiguration.defaultLifetimeSeconds, in: TURNConfiguration.lifetimeRange)
        try reader.finish()
        return TURNConfiguration(urls: urls, sharedSecret: secret, credentialLifetimeSeconds: lifetime)
    }
}
