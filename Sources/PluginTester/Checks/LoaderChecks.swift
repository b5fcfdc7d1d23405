import Dispatch
import PipelineHost
import PluginAPI
import Synchronization
import VersionedStructs

/// Loaders: the callback contract of loader.h on real transfers — files for the file scheme, URLs that carry their
/// body for data:, the HTTP test server
/// (Tests/HTTPTestServer/http_test_server.py) for http.
enum LoaderChecks {
    static let all: [CheckDefinition] = [configuration, contract, concurrency]

    /// ABI 1.1 instances: the defaults open, a key the loader does not know fails the open naming it (loader.h), and
    /// each open makes its own instance.
    static let configuration = CheckDefinition(id: "loader.configuration", title: "instances: defaults open, an unknown key is refused by name",
                                               scope: .loader) { context in
        let loader = try context.loader()
        guard loader.table.isConfigurable else {
            throw context.skip("an ABI 1.0 loader: it has no instances and takes no configuration")
        }
        var message = [CChar](repeating: 0, count: 1024)
        func open(_ configuration: String) -> (Int32, String, OpenedLoader?) {
            message = [CChar](repeating: 0, count: 1024)
            let (status, opened) = message.withUnsafeMutableBufferPointer { m in
                Watchdog.guarding("loader open(\"\(configuration)\")", limit: context.settings.callLimit) {
                    loader.table.open(configuration: configuration, message: ip_message(buffer: m.baseAddress, capacity: m.count))
                }
            }
            return (status, ABICopy.text(message), opened)
        }
        let (defaultStatus, defaultMessage, first) = open("")
        if defaultStatus != IP_STATUS_OK || first == nil {
            context.fail("open with the defaults returned \(StatusName.of(defaultStatus)): \(defaultMessage)")
        }
        let (_, _, second) = open("")
        if first != nil, second != nil, first === second { context.fail("two opens gave the same instance object") }
        let key = "imagepipe-plugin-test-unknown-key"
        let (unknownStatus, unknownMessage, unknown) = open("\(key)=1")
        if unknownStatus == IP_STATUS_OK || unknown != nil {
            context.fail("open with an unknown key ('\(key)=1') succeeded: a misspelt key must fail the open, naming the key")
        } else if !unknownMessage.contains(key) {
            context.fail("open with an unknown key returned \(StatusName.of(unknownStatus)), but its message does not name the key: \(unknownMessage)")
        } else {
            context.note("defaults open; an unknown key is refused: \(unknownMessage)")
        }
    }

    /// Pattern bytes: byte i is i % 251 (the test server's generated bodies use the same rule).
    static func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8($0 % 251) } }

    static func base64(_ bytes: [UInt8]) -> String { Base64.encode(bytes) }

    /// The places a loader is tested against: URLs for a small, an empty and a big body, and failing cases.
    /// `@unchecked Sendable`: concurrent workers only read its strings.
    struct Fixture: @unchecked Sendable {
        var small: String, empty: String, big: String, bigSize: Int
        var missing: String
        /// (URL, what it is) that must complete with an error.
        var failures: [(String, String)]
        var slow: String
        var folder: String
        var server: ChildProcess?
    }

    /// The fixture of the loader's scheme; its folder is removed when there is none (a skip, a failure), since the
    /// caller's cleanup only ever sees a fixture that was returned.
    static func fixture(for loader: LoaderUnderTest, context: CheckContext) throws -> Fixture {
        let folder = try GlobalStateChecks.temporaryFolder()
        do {
            return try fixture(for: loader, context: context, in: folder)
        } catch {
            GlobalStateChecks.removeFolder(folder)
            throw error
        }
    }

    private static func fixture(for loader: LoaderUnderTest, context: CheckContext, in folder: String) throws -> Fixture {
        try GlobalStateChecks.writeFile(folder + "/small.bin", pattern(100))
        try GlobalStateChecks.writeFile(folder + "/empty.bin", [])
        let bigSize = 3 << 20
        try GlobalStateChecks.writeFile(folder + "/big.bin", pattern(bigSize))
        if loader.info.schemes.contains("file") {
            return Fixture(small: "file://\(folder)/small.bin", empty: "file://\(folder)/empty.bin", big: "file://\(folder)/big.bin",
                           bigSize: bigSize, missing: "file://\(folder)/missing.bin",
                           failures: [("file://\(folder)", "a folder"), ("file://\(folder)/missing.bin", "a missing file")],
                           slow: "file://\(folder)/big.bin", folder: folder)
        }
        if loader.info.schemes.contains("data") {
            // RFC 2397 URLs carry their body: base64 for the binary bodies, failures that no decoder may accept.
            let url = { (bytes: [UInt8]) in "data:application/octet-stream;base64," + base64(bytes) }
            return Fixture(small: url(pattern(100)), empty: "data:,", big: url(pattern(bigSize)), bigSize: bigSize,
                           missing: "data:;base64,@@@@",
                           failures: [("data:;base64,@@@@", "invalid base64"), ("data:no-comma-here", "a data: URL without a comma")],
                           slow: url(pattern(bigSize)), folder: folder)
        }
        guard loader.info.schemes.contains("http") else {
            throw context.skip("no fixture for the schemes \(loader.info.schemes.joined(separator: ", ")) (file, data and http are tested)")
        }
        guard let script = context.settings.serverScript else {
            throw context.skip("the HTTP test server script (Tests/HTTPTestServer/http_test_server.py) was not found")
        }
        try GlobalStateChecks.writeFile(folder + "/image.png", pattern(100))
        let server = try ChildProcess(executable: "/usr/bin/env", arguments: ["python3", script, "--root", folder], holdStandardInput: true)
        guard case .line(let first) = server.nextLine(until: ChildProcess.now() + 10), let port = Int(first) else {
            throw PluginUnderTest.Failure("the HTTP test server did not start: \(server.errorText.prefix(300))")
        }
        let base = "http://127.0.0.1:\(port)"
        return Fixture(small: "\(base)/small.bin", empty: "\(base)/empty.bin", big: "\(base)/big?bytes=\(bigSize)", bigSize: bigSize,
                       missing: "http://127.0.0.1:9/refused",
                       failures: [("\(base)/cut?bytes=10000&after=5000", "a body cut short"),
                                  ("http://127.0.0.1:9/refused", "a refused connection")],
                       slow: "\(base)/slow?bytes=200000&delay=20&chunk=2000", folder: folder, server: server)
    }

    static let contract = CheckDefinition(id: "loader.contract", title: "callback order, exactly-once completion, bytes, errors, cancellation",
                                          scope: .loader, timeout: { 60 + 6.0 * Double($0) }) { context in
        let loader = try context.loader()
        let fixture = try fixture(for: loader, context: context)
        defer {
            fixture.server?.closeStandardInput()
            GlobalStateChecks.removeFolder(fixture.folder)
        }
        let knowsSize = loader.info.capabilities & UInt64(IP_LOADER_KNOWS_SIZE) != 0
        var loads = 0
        func expectBody(_ url: String, _ expected: [UInt8], _ what: String) {
            let result = loader.load(url)
            loads += 1
            context.fail(result.problems, what)
            guard result.startStatus == IP_STATUS_OK, result.completion?.status == IP_STATUS_OK else {
                context.fail("\(what): \(result.statusText)")
                return
            }
            if result.bytes != expected { context.fail("\(what): received \(result.bytes.count) bytes, expected \(expected.count)") }
            if knowsSize, let size = result.expectedSize, size != -1, size != Int64(expected.count) {
                context.fail("\(what): response() announced \(size) bytes for a body of \(expected.count)")
            }
        }
        expectBody(fixture.small, pattern(100), "a 100-byte body")
        expectBody(fixture.empty, [], "an empty body")
        expectBody(fixture.big, pattern(fixture.bigSize), "a \(fixture.bigSize >> 20) MiB body")
        if loader.info.schemes.contains("file") {
            expectBody(String(fixture.small.dropFirst("file://".count)), pattern(100), "a plain absolute path")
        }
        for (url, what) in fixture.failures {
            let result = loader.load(url)
            loads += 1
            context.fail(result.problems, what)
            if result.startStatus == IP_STATUS_OK && result.completion?.status == IP_STATUS_OK {
                context.fail("\(what) (\(url)) completed with OK")
            }
        }
        let limited = loader.load(fixture.big, maxBytes: 1000)
        loads += 1
        context.fail(limited.problems, "max_bytes 1000")
        if limited.startStatus == IP_STATUS_OK, limited.completion?.status != IP_STATUS_LIMIT_EXCEEDED {
            context.fail("max_bytes 1000 on a \(fixture.bigSize)-byte body: \(limited.statusText), expected LIMIT_EXCEEDED")
        } else if limited.bytes.count > 1000 {
            context.fail("max_bytes 1000 but \(limited.bytes.count) bytes were delivered")
        }
        for (cancel, what) in [(LoaderUnderTest.Cancellation.immediately, "cancelled right after start"),
                               (.afterFirstData, "cancelled after its first data")] {
            let started = ChildProcess.now()
            let result = loader.load(fixture.slow, cancel: cancel)
            loads += 1
            context.fail(result.problems, what)
            if let status = result.completion?.status, status != IP_STATUS_CANCELLED, status != IP_STATUS_OK {
                context.warn("a load \(what) completed with \(StatusName.of(status)), not CANCELLED")
            }
            if ChildProcess.now() - started > 3 { context.warn("a load \(what) took \(Int(ChildProcess.now() - started)) s to complete") }
        }
        let stopped = loader.load(fixture.big, stopAfterBytes: 1)
        loads += 1
        context.fail(stopped.problems, "data() asking to stop")
        if stopped.completion?.status == IP_STATUS_OK && stopped.bytes.count >= fixture.bigSize {
            context.warn("data() returned non-zero (stop) but the whole body was delivered")
        }
        let rejected = loader.load(fixture.small, rejectResponse: true)
        loads += 1
        context.fail(rejected.problems, "a rejected response")
        if rejected.completion?.status == IP_STATUS_OK && !rejected.bytes.isEmpty {
            context.fail("response() returned non-zero (reject) but the body was still delivered with OK")
        }
        context.note("\(loads) loads kept the callback order and completed exactly once")
    }

    static let concurrency = CheckDefinition(id: "loader.concurrency", title: "8 loads at once from 4 threads", scope: .loader,
                                             applies: { d, i in
        d.loaders[i].capabilities & UInt64(IP_LOADER_THREAD_SAFE) != 0 ? nil : "the loader does not claim THREAD_SAFE"
    }) { context in
        let loader = try context.loader()
        let fixture = try fixture(for: loader, context: context)
        defer {
            fixture.server?.closeStandardInput()
            GlobalStateChecks.removeFolder(fixture.folder)
        }
        let problems = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for round in 0..<2 {
                let (url, expected) = (thread + round) % 2 == 0 ? (fixture.small, 100) : (fixture.big, fixture.bigSize)
                let result = loader.load(url)
                var found = result.problems
                if result.completion?.status != IP_STATUS_OK { found.append(result.statusText) }
                if result.bytes.count != expected { found.append("received \(result.bytes.count) of \(expected) bytes") }
                if !found.isEmpty { problems.withLock { $0 += found.map { "thread \(thread) load \(round): \($0)" } } }
            }
        }
        for problem in problems.withLock({ $0 }) { context.fail(problem) }
        context.note("8 concurrent loads completed once each with the right bytes")
    }
}
