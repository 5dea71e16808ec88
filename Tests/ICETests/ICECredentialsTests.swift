import TestSupport
import Testing

@testable import ICE

@Suite struct ICECredentialsTests {
    @Test func generatedCredentialsHaveTheDocumentedLengthsAndOnlyIceChars() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        for _ in 0..<50 {
            let credentials = ICECredentials.random()
            #expect(credentials.usernameFragment.count == 8)
            #expect(credentials.password.count == 24)
            #expect(credentials.usernameFragment.allSatisfy(allowed.contains))
            #expect(credentials.password.allSatisfy(allowed.contains))
        }
    }

    @Test func generatedCredentialsDiffer() {
        let all = (0..<100).map { _ in ICECredentials.random() }
        #expect(Set(all.map(\.usernameFragment)).count == 100)
        #expect(Set(all.map(\.password)).count == 100)
    }

    @Test func aSeededGeneratorGivesRepeatableCredentialsThatUseTheWholeAlphabet() {
        var first = SeededGenerator(seed: 42)
        var second = SeededGenerator(seed: 42)
        #expect(ICECredentials.random(using: &first) == ICECredentials.random(using: &second))
        var generator = SeededGenerator(seed: 7)
        var seen = Set<Character>()
        for _ in 0..<200 {
            seen.formUnion(ICECredentials.random(using: &generator).password)
        }
        #expect(seen.count == 64)
    }
}
