import Foundation
import PipelineHost
import Testing
import TestSupport

/// A coder that runs in a worker and needs its sniff to confirm a magic match is asked in the worker
/// (`confirmWithSniff`): a refusal there moves selection on exactly as an in-process refusal does.
@Suite struct WorkerSniffTests {
    @Test func theWorkerSniffsForAnIsolatedCoder() throws {
        let folder = try PluginSandbox.directory(with: ["libSVGCoder.so", "libPNGCoder.so"])
        let host = IsolationSupport.host(folder)
        let pool = try IsolationSupport.attachPool(to: host, size: 1)
        defer { pool.shutdown() }
        #expect(host.coders.isolator.policy == .automatic)  // SVG recommends isolation; PNG does not

        let notSVG = Array("<?xml version=\"1.0\"?>\n<html><body>text</body></html>\n".utf8)
        let declined = IsolationSupport.failure { _ = try host.coders.decode(data: notSVG) }
        guard case .unknownFormat = declined else {
            Issue.record("expected unknownFormat, got \(String(describing: declined))")
            return
        }
        #expect(pool.statistics.requests == 1, "the worker, not the host, sniffed: \(pool.statistics)")

        let svg = Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="6"><rect width="8" height="6" fill="red"/></svg>"#.utf8)
        let image = try host.coders.decode(data: svg)
        #expect((image.width, image.height) == (8, 6))
        #expect(pool.statistics.requests == 2)
        #expect(pool.statistics.workersStarted == 1, "a declined sniff leaves the worker healthy")
    }

    /// A request names the plugin file the host found its coder in, and the worker opens exactly that file: here the
    /// workers' own search path is empty, so a worker that scanned instead would find no coder at all. The preload
    /// hint opens the file before the first request.
    @Test(arguments: [false, true]) func theWorkerOpensTheHostsPluginFile(preload: Bool) throws {
        let folder = try PluginSandbox.directory(with: ["libSVGCoder.so"])
        let host = IsolationSupport.host(folder)
        var configuration = WorkerPool.Configuration(
            executable: try IsolationSupport.workerExecutable(), pluginDirectories: [], registryCachePath: nil, size: 1, timeout: 10)
        if preload { configuration.preload = [folder + "/libSVGCoder.so"] }
        let pool = WorkerPool(configuration: configuration)
        defer { pool.shutdown() }
        host.coders.isolator = Isolator(pool: pool)
        let svg = Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="5" height="3"><rect width="5" height="3" fill="blue"/></svg>"#.utf8)
        let image = try host.coders.decode(data: svg, isolation: .isolated)
        #expect((image.width, image.height) == (5, 3))
        #expect(pool.statistics.requests == 1)
    }
}
