/// Which checks run on which component, with which samples and timeouts: decided in the parent from the plugin's
/// description, so each child only runs what it is told.
struct TestPlan {
    let strictness: Int
    let seed: UInt64
    let samples: SampleFinder
    let callTimeout: Double
    /// Overrides every check's own timeout.
    let timeout: Double?
    let serverScript: String?
    /// The configuration string cache checks open the store with (nil: the plugin's default).
    let cacheConfiguration: String?
    let only: Regex<AnyRegexOutput>?

    func includes(_ id: String) -> Bool {
        guard let only else { return true }
        return (try? only.firstMatch(in: id)) != nil
    }

    /// Report order: catalog order, then component order.
    func order(of outcome: CheckOutcome) -> (Int, String) {
        (CheckCatalog.all.firstIndex { $0.id == outcome.id } ?? Int.max, outcome.component ?? "")
    }

    private var common: [String] {
        var arguments = ["--strictness", String(strictness), "--seed", String(seed), "--call-timeout", String(callTimeout)]
        if let serverScript { arguments += ["--server-script", serverScript] }
        if let cacheConfiguration { arguments += ["--cache-config", cacheConfiguration] }
        return arguments
    }

    private func timeout(for definition: CheckDefinition) -> Double {
        timeout ?? definition.timeout(strictness)
    }

    /// Without a description, only checks that can still say something run: the file checks always; the ABI
    /// negotiation and descriptor checks too when loading failed cleanly (init refused, a broken table), not when it
    /// crashed or hung (they would only do the same again).
    private func explainsALoadFailure(_ id: String, _ load: CheckOutcome) -> Bool {
        if id.hasPrefix("file.") { return true }
        guard load.result.status == .failed else { return false }
        return id.hasPrefix("abi.negotiate.") || id == "descriptors.sanity"
    }

    func loadTask() -> CheckTask {
        CheckTask(definition: LoadChecks.dlopen, component: nil, componentID: nil, arguments: common,
                  timeout: timeout(for: LoadChecks.dlopen), tolerateCrash: false)
    }

    /// The tasks to run, and the checks skipped without running (not applicable, or the plugin did not load).
    /// When loading crashed or hung, only the checks that do not load the plugin (file.*) still run: every other
    /// check would crash or hang the same way.
    func tasks(for description: PluginDescription?, load: CheckOutcome) -> ([CheckTask], [CheckOutcome]) {
        var tasks: [CheckTask] = []
        var skipped: [CheckOutcome] = []
        func skip(_ definition: CheckDefinition, _ component: String?, _ reason: String) {
            skipped.append(CheckOutcome(id: definition.id, title: definition.title, component: component,
                                        result: CheckResult(status: .skipped, message: reason), seconds: 0))
        }
        // Plugin-wide checks get one sample per coder, as "<coder index>:<path>".
        let pluginSamples = (description?.coders ?? []).enumerated().compactMap { index, coder in
            samples.choose(for: coder, strictness: 1).samples.first.map { "\(index):\($0)" }
        }
        for definition in CheckCatalog.all where definition.id != LoadChecks.dlopen.id && includes(definition.id) {
            switch definition.scope {
            case .plugin where description == nil && !explainsALoadFailure(definition.id, load):
                let how = ["crashed": "crashed while loading", "timed-out": "hung while loading"][load.result.status.rawValue] ?? "did not load"
                skip(definition, nil, "not run: the plugin \(how) (see load.dlopen)")
            case .plugin:
                tasks.append(CheckTask(definition: definition, component: nil, componentID: nil,
                                       arguments: common + pluginSamples.flatMap { ["--sample", $0] },
                                       timeout: timeout(for: definition), tolerateCrash: false))
            case .coder, .loader, .cache:
                guard let description else {
                    if !skipped.contains(where: { $0.id == "components" }) {
                        skipped.append(CheckOutcome(id: "components", title: "coder, loader and cache checks", component: nil,
                                                    result: CheckResult(status: .skipped, message: "not run: the plugin did not load (see load.dlopen)"),
                                                    seconds: 0))
                    }
                    continue
                }
                let ids: [String]
                switch definition.scope {
                case .coder: ids = description.coders.map(\.id)
                case .loader: ids = description.loaders.map(\.id)
                default: ids = description.caches.map(\.id)
                }
                for (index, id) in ids.enumerated() {
                    if let reason = definition.applies(description, index) { skip(definition, id, reason); continue }
                    var arguments = common
                    var tolerate = false
                    if definition.scope == .coder {
                        let coder = description.coders[index]
                        let choice = samples.choose(for: coder, strictness: strictness)
                        arguments += choice.samples.flatMap { ["--sample", $0] } + choice.hostile.flatMap { ["--hostile", $0] }
                        tolerate = definition.hostileInput && coder.recommendsIsolation
                    }
                    tasks.append(CheckTask(definition: definition, component: index, componentID: id, arguments: arguments,
                                           timeout: timeout(for: definition), tolerateCrash: tolerate))
                }
            }
        }
        // Heaviest first, so that parallel workers finish together.
        tasks.sort { ($0.definition.hostileInput ? 0 : 1) < ($1.definition.hostileInput ? 0 : 1) }
        return (tasks, skipped)
    }
}
