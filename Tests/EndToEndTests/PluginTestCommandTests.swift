import Foundation
import PipelineHost
import Testing
import TestSupport

/// `imagepipe plugin test` against plugins broken on purpose (Tests/Fixtures/broken_plugin.c, fixture_cache.c):
/// each breakage is reported with the right status, and the tool itself always survives and exits 1.
@Suite struct PluginTestCommandTests {
    /// Compiles a C fixture with one define into a fresh private folder; returns the .so path.
    static func build(_ source: String, _ define: String?, name: String) throws -> String {
        let folder = try TestPaths.temporaryDirectory("imagepipe-broken")
        let output = folder + "/" + name
        let arguments = ["-std=c11", "-O0", "-fPIC", "-shared", "-fvisibility=hidden", "-pthread", "-Wall", "-Wextra", "-Werror",
                         "-I", TestPaths.repositoryRoot + "/Sources/PluginAPI/include"]
            + (define.map { ["-D" + $0] } ?? []) + ["-o", output, TestPaths.repositoryRoot + "/Tests/Fixtures/" + source]
        let result = try CommandLine.run("/usr/bin/cc", arguments)
        guard result.status == 0 else { throw TestSupportError("cc failed for \(name): \(result.stderr)") }
        chmod(output, 0o755)
        return output
    }

    /// A samples folder with two small "brkn" files (the broken fixture's format).
    static func samples() throws -> String {
        let folder = try TestPaths.temporaryDirectory("imagepipe-brkn-samples")
        try Data([0x42, 0x52, 0x4B, 0x4E, 7, 5]).write(to: URL(fileURLWithPath: folder + "/a.brkn"))
        try Data([0x42, 0x52, 0x4B, 0x4E, 32, 17]).write(to: URL(fileURLWithPath: folder + "/b.brkn"))
        return folder
    }

    struct Report {
        let status: Int32
        let json: [String: Any]
        let checks: [String: [String: Any]]

        func result(_ id: String) -> [String: Any]? { checks[id]?["result"] as? [String: Any] }
        func status(of id: String) -> String? { result(id)?["status"] as? String }
        func message(of id: String) -> String { result(id)?["message"] as? String ?? "" }
    }

    /// Runs `imagepipe plugin test <plugin> --json ...` and parses the report (one entry per check ID).
    static func test(_ plugin: String, _ extra: [String] = []) throws -> Report {
        let result = try CommandLine.run(TestPaths.imagepipeBinary,
                                         ["plugin", "test", plugin, "--json", "--seed", "5", "--call-timeout", "2"] + extra)
        let data = Data(result.stdout.utf8)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "no JSON report: \(result.stderr)")
        let list = try #require(json["checks"] as? [[String: Any]])
        var checks: [String: [String: Any]] = [:]
        for check in list { checks[check["id"] as? String ?? ""] = checks[check["id"] as? String ?? ""] ?? check }
        return Report(status: result.status, json: json, checks: checks)
    }

    @Test func aWellBehavedFixturePassesWithExitStatusZero() throws {
        let plugin = try Self.build("broken_plugin.c", nil, name: "good.so")
        let report = try Self.test(plugin, ["--samples", try Self.samples()])
        #expect(report.status == 0, "\(report.checks.filter { ["failed", "crashed", "timed-out"].contains(($0.value["result"] as? [String: Any])?["status"] as? String ?? "") })")
        #expect(report.json["ok"] as? Bool == true)
        #expect(report.status(of: "coder.decode") == "passed")
        #expect(report.status(of: "file.exports") == "passed")
        #expect(report.status(of: "process.global-state") == "passed")
        let summary = try #require(report.json["summary"] as? [String: Any])
        #expect((summary["passed"] as? Int ?? 0) >= 20)
    }

    @Test(arguments: [
        ("BROKEN_SEGFAULT_IN_DECODE", "coder.decode", "crashed", "signal 11"),
        ("BROKEN_INFINITE_LOOP", "coder.decode", "timed-out", "did not return within 2 s"),
        ("BROKEN_WRITES_PAST_BUFFER", "coder.decode", "failed", "wrote past the end of a pixel buffer"),
        ("BROKEN_CHANGES_LOCALE", "process.global-state", "failed", "changed the locale"),
        ("BROKEN_ENCODE_CLAIM", "descriptors.sanity", "failed", "claims CAN_ENCODE but lacks encode"),
        ("BROKEN_LEAKS_FD", "process.global-state", "failed", "leaks file descriptors"),
        ("BROKEN_FOREIGN_ICC", "coder.decode", "failed", "ICC profile that alloc_bytes did not allocate"),
        ("BROKEN_FOREIGN_HOST", "coder.decode", "failed", "alloc_pixels with a host pointer other than the one init received"),
        ("BROKEN_TRUSTS_EXTENSIONS", "coder.newer-host", "failed", "decoded differently"),
        ("BROKEN_WRITES_PAST_INFO", "coder.probe", "failed", "wrote past the end of the ip_image_info the host lent"),
    ])
    func eachBreakageIsReportedWithItsStatus(define: String, check: String, status: String, message: String) throws {
        // Given a plugin broken in exactly one way
        let plugin = try Self.build("broken_plugin.c", define, name: "\(define.lowercased()).so")
        // When the tester runs the check that catches it
        let report = try Self.test(plugin, ["--samples", try Self.samples(), "--only", "^(\(check.replacingOccurrences(of: ".", with: "\\.")))$"])
        // Then that check has the expected status and says why, and the tool exits 1 instead of dying
        #expect(report.status(of: check) == status, "\(report.result(check) ?? [:])")
        #expect(report.message(of: check).contains(message), "\(report.message(of: check))")
        #expect(report.status == 1)
    }

    @Test func aCrashIsReportedWithTheInputThatCausedIt() throws {
        let plugin = try Self.build("broken_plugin.c", "BROKEN_SEGFAULT_IN_DECODE", name: "segv.so")
        let report = try Self.test(plugin, ["--samples", try Self.samples(), "--only", "robustness.bitflips"])
        let result = try #require(report.result("coder.robustness.bitflips"))
        #expect(result["status"] as? String == "crashed")
        #expect(result["signal"] as? Int == 11)
        #expect((result["during"] as? String ?? "").contains("seed 5"), "the input is named with the seed that replays it")
    }

    @Test func aPluginThatCrashesInInitFailsOnlyOnceAndTheFileChecksStillRun() throws {
        let plugin = try Self.build("broken_plugin.c", "BROKEN_CRASH_IN_INIT", name: "init.so")
        let report = try Self.test(plugin)
        #expect(report.status(of: "load.dlopen") == "crashed")
        #expect((report.result("load.dlopen")?["during"] as? String ?? "").contains("init"))
        #expect(report.status(of: "file.elf") == "passed")
        #expect(report.status(of: "abi.negotiate.current") == "skipped")
        #expect(report.status == 1)
    }

    @Test func aSecondExportedSymbolFailsTheExportCheck() throws {
        let folder = try TestPaths.temporaryDirectory()
        let plugin = try FixturePlugins.build("noentry.so", in: folder, defines: ["BROKEN_NO_ENTRY"])
        let report = try Self.test(plugin, ["--only", "^file\\.exports$"])
        #expect(report.status(of: "file.exports") == "failed")
        #expect(report.message(of: "file.exports").contains("does not export imagepipe_plugin_entry"))
    }

    @Test func theFixtureCachePassesAndABrokenOneFails() throws {
        let good = try Self.test(try Self.build("fixture_cache.c", nil, name: "cache.so"))
        #expect(good.status(of: "cache.operations") == "passed", "\(good.message(of: "cache.operations"))")
        #expect(good.status(of: "cache.concurrency") == "passed")
        #expect(good.status == 0)
        let broken = try Self.test(try Self.build("fixture_cache.c", "BROKEN_CACHE_FOUND_ON_MISS", name: "cache-broken.so"))
        #expect(broken.status(of: "cache.operations") == "failed")
        #expect(broken.message(of: "cache.operations").contains("expected NOT_FOUND"))
    }

    /// A shared store (a Redis namespace) is one store for every check: the operations check clears it, so a
    /// concurrency check beside it lost its entries (a CI run failed so). The fixture's "lock=" store refuses a
    /// second process while open.
    @Test func cacheChecksTakeTheSharedStoreOneAtATime() throws {
        let plugin = try Self.build("fixture_cache.c", nil, name: "cache-shared.so")
        let lock = try TestPaths.temporaryDirectory("imagepipe-cache-lock") + "/store.lock"
        let report = try Self.test(plugin, ["--cache-config", "lock=" + lock, "--jobs", "4"])
        #expect(report.status(of: "cache.operations") == "passed", "\(report.message(of: "cache.operations"))")
        #expect(report.status(of: "cache.concurrency") == "passed", "\(report.message(of: "cache.concurrency"))")
    }

    @Test func theTextReportNamesEveryCheckAndTheSeed() throws {
        let plugin = try Self.build("broken_plugin.c", nil, name: "text.so")
        let result = try CommandLine.run(TestPaths.imagepipeBinary, ["plugin", "test", plugin, "--seed", "42", "--only", "^(file|abi)\\."])
        #expect(result.status == 0)
        #expect(result.stdout.contains("seed 42 (replay with --seed 42)"))
        #expect(result.stdout.contains("  passed    file.exports"))
        #expect(result.stdout.contains("abi.negotiate.future"))
        #expect(!result.stdout.contains("coder.decode"), "--only filters the checks")
    }

    @Test func hiddenSubcommandsStayOutOfHelp() throws {
        let help = try CommandLine.run(TestPaths.imagepipeBinary, ["--help"])
        #expect(help.stdout.contains("plugin"))
        #expect(!help.stdout.contains("__scan"))
        #expect(!help.stdout.contains("__plugin-check"))
    }
}

/// Crash-safe scanning: the CLI inspects uncached plugins in `imagepipe __scan` children.
@Suite struct CrashSafeScanTests {
    @Test func aPluginThatCrashesOrHangsWhileScannedDoesNotStopTheListing() throws {
        // Given a folder with a good plugin between one that crashes in init and one that hangs in init
        let folder = try TestPaths.temporaryDirectory()
        let cache = folder + "-registry.json"
        for (define, name) in [("BROKEN_CRASH_IN_INIT", "a-crash.so"), ("BROKEN_HANG_IN_INIT", "c-hang.so")] {
            let built = try PluginTestCommandTests.build("broken_plugin.c", define, name: name)
            #expect(rename(built, folder + "/" + name) == 0)
        }
        try FixturePlugins.build("b-good.so", in: folder, defines: [FixturePlugins.stringDefine("FIXTURE_ID", "org.test.good")])
        let environment = ["IMAGEPIPE_REGISTRY_CACHE": cache, "IMAGEPIPE_SCAN_TIMEOUT": "2"]
        let arguments = ["--no-default-plugins", "--plugin-dir", folder]

        // When the CLI lists coders (nothing cached yet)
        let coders = try CommandLine.run(TestPaths.imagepipeBinary, ["coders"] + arguments, environment: environment)

        // Then it survives and lists the good plugin's coder
        #expect(coders.status == 0, "\(coders.stderr)")
        #expect(coders.stdout.contains("org.test.good.coder/1"))
        // And the broken ones are refused with the reason, from the cache on the next run
        let plugins = try CommandLine.run(TestPaths.imagepipeBinary, ["plugins"] + arguments, environment: environment)
        #expect(plugins.stdout.contains("a-crash.so\n  refused   crashed while being scanned (signal 11, SIGSEGV)"), "\(plugins.stdout)")
        #expect(plugins.stdout.contains("c-hang.so\n  refused   timed out after 2 s while being scanned"), "\(plugins.stdout)")
        #expect(plugins.stdout.contains("b-good.so\n  loaded"))
    }

    @Test func theRegistryScansInAChildWhenGivenAScanner() throws {
        let folder = try TestPaths.temporaryDirectory()
        let built = try PluginTestCommandTests.build("broken_plugin.c", "BROKEN_CRASH_IN_INIT", name: "crash.so")
        #expect(rename(built, folder + "/crash.so") == 0)
        try FixturePlugins.build("good.so", in: folder, defines: [FixturePlugins.stringDefine("FIXTURE_ID", "org.test.child")])
        // This test process would die if it opened crash.so itself.
        let registry = PluginRegistry.scan(PluginSearchPath(directories: [folder]), cachePath: nil,
                                           scanner: PluginScanner(executable: TestPaths.imagepipeBinary, timeout: 5))
        #expect(registry.records.first { $0.path.hasSuffix("crash.so") }?.state
                == .refused(reason: "crashed while being scanned (signal 11, SIGSEGV)"))
        #expect(registry.coders.map(\.descriptor.id) == ["org.test.child.coder/1"])
        // The good plugin opens lazily, in this process, on first use.
        let image = try PluginHost(registry: registry).coders.decode(data: Array("FIXT".utf8))
        #expect(image.width == 2)
    }
}
