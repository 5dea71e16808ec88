/// How often, and about how many streams, a router reports audio levels (`MediaEvent.audioLevels`).
public enum AudioLevelReport {
    /// Least time between two reports of one router.
    public static let interval: Duration = .milliseconds(250)
    /// The loudest streams one report names.
    public static let maximumStreams = 5
}
