import Archiving

extension SwitchyardConfiguration {
    /// Reads `archives` (docs/archiving.md); nil when `enabled` is false.
    static func archives(_ reader: inout ConfigurationReader) throws(ConfigurationError) -> ArchivingConfiguration? {
        let defaults = ArchivingConfiguration(directory: "archives")
        let enabled = try reader.boolean("enabled", default: true)
        let directory = try reader.string("directory", default: defaults.directory)
        guard !directory.isEmpty else {
            throw ConfigurationError(keyPath: reader.keyPath("directory"), problem: "must not be empty")
        }
        let configuration = ArchivingConfiguration(
            directory: directory,
            maximumBytesPerArchive: Int64(
                try reader.integer(
                    "maximumBytesPerArchive", default: Int(defaults.maximumBytesPerArchive), in: 1 << 20...Int.max)),
            minimumFreeBytes: Int64(
                try reader.integer("minimumFreeBytes", default: Int(defaults.minimumFreeBytes), in: 0...Int.max)),
            maximumConcurrent: try reader.integer(
                "maximumConcurrent", default: defaults.maximumConcurrent, in: 1...10_000),
            ringPackets: try reader.integer("ringPackets", default: defaults.ringPackets, in: 256...1 << 20))
        try reader.finish()
        return enabled ? configuration : nil
    }
}
