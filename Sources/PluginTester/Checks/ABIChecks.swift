import PipelineHost
import PluginAPI

/// The versioning rules of version.h and entry.h, each negotiation in a fresh process (init runs once per process).
enum ABIChecks {
    static let all: [CheckDefinition] = [negotiateCurrent, negotiateOlder, negotiateFuture, unknownIDs, reinitialize]

    static let negotiateCurrent = negotiation(id: "abi.negotiate.current", title: "ABI negotiation with the host's minor",
                                              offset: 0)
    static let negotiateOlder = negotiation(id: "abi.negotiate.older", title: "ABI negotiation with an older host minor",
                                            offset: -1)
    static let negotiateFuture = negotiation(id: "abi.negotiate.future", title: "ABI negotiation with a future host minor",
                                             offset: 1)

    /// init(minor) must succeed and answer at most min(host minor, the plugin's own minor).
    private static func negotiation(id: String, title: String, offset: Int) -> CheckDefinition {
        CheckDefinition(id: id, title: title, scope: .plugin) { context in
            let hostMinor = Int(IP_ABI_MINOR) + offset
            guard hostMinor >= 0 else {
                throw context.skip("the host speaks \(IP_ABI_MAJOR).\(IP_ABI_MINOR): there is no older minor to offer")
            }
            let plugin = try PluginUnderTest.open(context.settings.pluginPath)
            // A component that fills a 1.1 slot without its 1.0 twin cannot work under a 1.0 host, which calls only
            // the 1.0 slots: such a plugin must refuse that host in init, with its reason (coder.h).
            let onlyOnePointOne = try plugin.componentsNeedingOnePointOne()
            let result = plugin.initialize(hostMinor: UInt32(hostMinor))
            if hostMinor < 1, let first = onlyOnePointOne.first {
                if result.status == IP_STATUS_OK {
                    context.fail("init(host minor \(hostMinor)) accepted a 1.0 host, but \(first) fills only ABI 1.1 slots, "
                                 + "which a 1.0 host never calls: refuse minors below 1 in init")
                } else if result.message.isEmpty {
                    context.fail("init(host minor \(hostMinor)) refused without a message (say that the plugin needs ABI 1.1)")
                } else {
                    context.note("refuses a 1.0 host, as its ABI 1.1-only slots require (\(first)): \(result.message)")
                }
                return
            }
            guard result.status == IP_STATUS_OK else {
                context.fail("init(host minor \(hostMinor)) returned \(StatusName.of(result.status))\(result.message.isEmpty ? "" : ": \(result.message)")"
                             + (offset > 0 ? " (a newer host must be accepted: answer the minor you speak)" : ""))
                return
            }
            let builtFor = plugin.entry.abi_minor
            let limit = min(UInt32(hostMinor), builtFor)
            if plugin.entry.`init` == nil {
                context.note("no init slot: the host assumes minor \(limit)")
            } else if result.pluginMinor == 0xFFFF_FFFF {
                context.fail("init returned OK without writing *plugin_abi_minor")
            } else if result.pluginMinor > limit {
                context.fail("init(host minor \(hostMinor)) answered minor \(result.pluginMinor); it must be at most "
                             + "min(host minor \(hostMinor), built-for minor \(builtFor)) = \(limit)")
            } else {
                context.note("host minor \(hostMinor) → plugin speaks \(IP_ABI_MAJOR).\(result.pluginMinor) (built for \(IP_ABI_MAJOR).\(builtFor))")
            }
        }
    }

    /// Unknown factory and extension IDs give NULL, before and after init (get_factory is callable before init).
    static let unknownIDs = CheckDefinition(id: "abi.unknown-ids", title: "unknown factory and extension IDs return NULL",
                                            scope: .plugin) { context in
        let plugin = try PluginUnderTest.open(context.settings.pluginPath)
        let unknown = ["org.imagepipe.no-such-factory/1", "org.imagepipe.coders/999", "org.imagepipe.coders", "", "org.imagepipe.coders/1 ",
                       String(repeating: "x", count: 5000)]
        func probe(_ phase: String) {
            for id in unknown where plugin.factory(id) != nil {
                context.fail("\(phase): get_factory(\"\(id.prefix(40))\(id.count > 40 ? "…" : "")\") returned a table; unknown IDs must give NULL")
            }
            if let get = plugin.entry.get_extension {
                for id in ["org.imagepipe.no-such-extension/1", ""] {
                    let table = Watchdog.guarding("get_extension(\"\(id)\")", limit: Watchdog.callLimit) { id.withCString { get($0) } }
                    if table != nil { context.fail("\(phase): get_extension(\"\(id)\") returned a table; unknown IDs must give NULL") }
                }
            }
        }
        probe("before init")
        let initialized = plugin.initialize()
        guard initialized.status == IP_STATUS_OK else { context.fail("init failed: \(initialized.message)"); return }
        probe("after init")
        context.note("\(unknown.count) unknown factory IDs\(plugin.entry.get_extension == nil ? "" : " and 2 extension IDs") → NULL")
    }

    /// A host may shut a plugin down and start it again in one process: the second init must work like the first.
    static let reinitialize = CheckDefinition(id: "abi.init-deinit-init", title: "init → deinit → init, then still usable",
                                              scope: .plugin) { context in
        let plugin = try PluginUnderTest.open(context.settings.pluginPath)
        let first = plugin.initialize()
        guard first.status == IP_STATUS_OK else { context.fail("first init failed: \(first.message)"); return }
        let before = try PluginDescription(plugin: plugin)
        guard let deinitialize = plugin.entry.deinit else {
            throw context.skip("no deinit slot: the plugin is initialised once per process")
        }
        Watchdog.guarding("deinit()", limit: Watchdog.callLimit) { deinitialize() }
        let second = plugin.initialize()
        guard second.status == IP_STATUS_OK else {
            context.fail("init after deinit returned \(StatusName.of(second.status)): \(second.message)")
            return
        }
        let after = try PluginDescription(plugin: plugin)
        if after.coders.map(\.id) != before.coders.map(\.id) || after.loaders.map(\.id) != before.loaders.map(\.id)
            || after.caches.map(\.id) != before.caches.map(\.id) {
            context.fail("the components differ after re-initialisation")
        }
        // Use a coder after the second init, on a self-made image where it can encode.
        for (index, coder) in try plugin.coders().enumerated() where after.coders[index].encodes && after.coders[index].decodes {
            let under = CoderUnderTest(table: coder, info: after.coders[index], callLimit: context.settings.callLimit)
            let round = SyntheticImage.roundTrip(under, label: "after re-init")
            if let problem = round.problem { context.fail("after init → deinit → init: \(problem)") }
        }
        Watchdog.guarding("deinit() after the second init", limit: Watchdog.callLimit) { deinitialize() }
        context.note("init, deinit, init and deinit again all returned")
    }
}
