/// Every check, in report order. IDs are stable: `--only` and CI scripts match them.
enum CheckCatalog {
    static let all: [CheckDefinition] = FileChecks.all + LoadChecks.all + ABIChecks.all + DescriptorChecks.all
        + GlobalStateChecks.all + CoderChecks.all + CoderSizeChecks.all + CoderLimitChecks.all + CoderStreamingChecks.all
        + CoderOutputChecks.all + CoderRobustnessChecks.all + CoderTranscodeChecks.all + LoaderChecks.all + CacheChecks.all

    static func definition(_ id: String) -> CheckDefinition? { all.first { $0.id == id } }
}
