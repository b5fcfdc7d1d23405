import Dispatch
import PipelineHost
#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe __plugin-check <check-id> <file.so> [settings]`: runs ONE check in this (fresh, child) process and
/// reports on the line protocol of `CheckChannel`. Hidden: only `imagepipe plugin test` starts it.
///
/// Set-up order matters: the protocol channel, the fault handler and the watchdog thread exist before any check
/// takes its baseline of process state, so none of them is mistaken for something the plugin did.
enum PluginCheckChildCommand: Command {
    static let name = "__plugin-check"
    static let summary = "run one plugin check in this process (internal)"
    static let help = "Usage: imagepipe __plugin-check <check-id> <file.so> [--component N] [--strictness N] [--seed N] "
        + "[--call-timeout S] [--deadline S] [--sample FILE]... [--hostile FILE]... [--server-script FILE] (internal)"

    static func run(_ arguments: [String]) async throws {
        CheckChannel.open()
        GuardedMemory.installFaultHandler()
        Watchdog.start()
        settleDispatch()
        let args = try Arguments(arguments, valued: ["component", "strictness", "seed", "call-timeout", "deadline", "sample",
                                                     "hostile", "server-script", "cache-config"], flags: [])
        guard args.positionals.count == 2 else { throw UsageError("expected <check-id> <file.so>") }
        // Last resort should the parent be gone: the process cannot outlive its deadline by much.
        alarm(UInt32(try args.int("deadline", range: 1...86_400) ?? 600) + 30)
        let settings = CheckContext.Settings(
            pluginPath: args.positionals[1],
            strictness: try args.int("strictness", range: 1...10) ?? 5,
            seed: UInt64(args.value("seed") ?? "") ?? 1,
            component: try args.int("component", range: 0...255) ?? 0,
            samples: args.all("sample"), hostileSamples: args.all("hostile"),
            callLimit: Double(args.value("call-timeout") ?? "") ?? 10,
            serverScript: args.value("server-script"),
            cacheConfiguration: args.value("cache-config"))
        Watchdog.callLimit = settings.callLimit
        guard let definition = CheckCatalog.definition(args.positionals[0]) else {
            CheckChannel.send("result", CheckResult(status: .failed, message: "unknown check \(args.positionals[0])").json)
            return
        }
        let context = CheckContext(settings: settings)
        do {
            try definition.run(context)
        } catch is CheckSkipped {
        } catch {
            context.fail("\(error)")
        }
        // Every check also checks the 1.0 host rule: each service is called with the host table the plugin was given.
        for service in TestHost.foreignHostCalls.withLock({ $0 }) {
            context.fail("called the host's \(service) with a host pointer other than the one init received "
                         + "(every service takes the plugin's own ip_host)")
        }
        CheckChannel.send("result", context.result().json)
    }
}

/// Lets libdispatch set up its timer descriptor (a timerfd its manager thread opens lazily, the first time any
/// timer is armed) now, before a check takes its baseline, so that it is not counted against the plugin.
private func settleDispatch() {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1)) { done.signal() }
    done.wait()
}

/// `imagepipe __scan <file.so>...`: the registry's scanner child (see PluginScanner). Hidden.
enum ScanChildCommand: Command {
    static let name = "__scan"
    static let summary = "inspect plugin files for the registry (internal)"
    static let help = "Usage: imagepipe __scan <file.so>... (internal: prints one inspection per file for the parent)"

    static func run(_ arguments: [String]) async throws {
        let status = PluginScanner.serve(paths: arguments)
        if status != 0 { exit(status) }
    }
}
