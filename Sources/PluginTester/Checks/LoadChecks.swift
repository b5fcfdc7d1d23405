import FoundationEssentials
import PipelineHost
import PluginAPI

/// Loading: dlopen with RTLD_NOW, the entry table, init, and how long that takes.
enum LoadChecks {
    static let all: [CheckDefinition] = [dlopen, time]

    /// Also sends the plugin's description to the parent, which plans the component checks from it.
    static let dlopen = CheckDefinition(id: "load.dlopen", title: "loads with RTLD_NOW, entry table, init", scope: .plugin) { context in
        let plugin = try PluginUnderTest.open(context.settings.pluginPath)
        let second = Watchdog.guarding("\(IP_ENTRY_SYMBOL)() a second time", limit: Watchdog.callLimit) { plugin.entryFunction() }
        if second != plugin.entryPointer {
            context.fail("\(IP_ENTRY_SYMBOL)() returned a different table on its second call: it must return one static table")
        }
        if plugin.entry.struct_size < UInt32(MemoryLayout<ip_plugin_entry>.size) {
            context.warn("entry struct_size \(plugin.entry.struct_size) is smaller than ABI \(IP_ABI_MAJOR).\(IP_ABI_MINOR)'s \(MemoryLayout<ip_plugin_entry>.size)")
        }
        if plugin.entry.get_factory == nil { context.fail("the entry has no get_factory: the plugin provides nothing") }
        let initialized = plugin.initialize()
        guard initialized.status == IP_STATUS_OK else {
            context.fail("init failed with \(StatusName.of(initialized.status)): \(initialized.message)")
            return
        }
        let description = try PluginDescription(plugin: plugin)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        CheckChannel.send("description", String(decoding: try encoder.encode(description), as: UTF8.self))
        if description.coders.isEmpty && description.loaders.isEmpty && description.caches.isEmpty {
            context.fail("provides no coder, loader or cache (get_factory returned NULL for every known factory ID)")
        }
        let parts = [("coder", description.coders.map(\.id)), ("loader", description.loaders.map(\.id)), ("cache", description.caches.map(\.id))]
            .filter { !$0.1.isEmpty }.map { "\($0.1.count) \($0.0)\($0.1.count == 1 ? "" : "s") (\($0.1.joined(separator: ", ")))" }
        context.note("\(description.pluginID) \(description.version), ABI \(description.abi): " + parts.joined(separator: ", "))
    }

    /// Loading is paid by every process that uses the plugin: keep dlopen + init fast (lazy library set-up).
    static let time = CheckDefinition(id: "load.time", title: "time to load, init and list components (warning over 100 ms)",
                                      scope: .plugin) { context in
        let started = ChildProcess.now()
        let plugin = try PluginUnderTest.open(context.settings.pluginPath)
        let opened = ChildProcess.now()
        let initialized = plugin.initialize()
        guard initialized.status == IP_STATUS_OK else { context.fail("init failed: \(initialized.message)"); return }
        _ = try PluginDescription(plugin: plugin)
        let total = (ChildProcess.now() - started) * 1000
        let text = "\(Int(total.rounded())) ms (dlopen + entry \(Int(((opened - started) * 1000).rounded())) ms)"
        if total > 100 {
            context.warn("loading took \(text), over 100 ms: defer expensive set-up to the first call")
        } else {
            context.note(text)
        }
    }
}
