import Foundation
import PipelineHost
import Testing
import TestSupport

/// Reading: plain paths, file URLs in their accepted spellings, big and empty files, concurrent loads.
@Suite("File loader: reading")
struct FileLoaderReadTests {
    @Test("loads alone and describes itself as the thread-safe, size-knowing loader of file URLs")
    func descriptor() throws {
        let host = try PluginSandbox.host(loading: ["libFileLoader.so"])
        #expect(host.registry.records.map(\.pluginID) == ["org.imagepipe.file"])
        let descriptors = host.loaders.loaders.map(\.descriptor)
        #expect(descriptors.map(\.id) == [FileLoaderTesting.loaderID])
        #expect(descriptors.first?.schemes == ["file"])
        #expect(descriptors.first?.capabilityNames == ["thread-safe", "knows-size"])
        #expect(host.loaders.canLoad(url: "/any/absolute/path.png"))
        #expect(!host.loaders.canLoad(url: "https://example.com/a.png"))
    }

    @Test("a 5 MB file arrives intact, by plain path and by file URL")
    func bigFile() async throws {
        let folder = try FileLoaderTesting.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Not a multiple of the 256 KiB chunk, so the last chunk is a partial one.
        let content = FileLoaderTesting.bytes(count: 5 * 1024 * 1024 + 12_345)
        let path = try TestFiles.write(content, to: folder + "/big.bin")
        let loaders = try FileLoaderTesting.loaders()
        let byPath = try await loaders.load(url: path, options: LoadOptions())
        #expect(byPath.count == content.count)
        #expect(byPath == content)
        let byURL = try await loaders.load(url: FileLoaderTesting.fileURL(path), options: LoadOptions())
        #expect(byURL == content)
    }

    @Test("an empty file loads as zero bytes")
    func emptyFile() async throws {
        let folder = try FileLoaderTesting.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try TestFiles.write([], to: folder + "/empty")
        #expect(try await FileLoaderTesting.loaders().load(url: path, options: LoadOptions()) == [])
    }

    @Test("file URLs are percent-decoded: spaces, '%', '#', '?' and non-ASCII in names")
    func percentEncodedURL() async throws {
        let folder = try FileLoaderTesting.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/with space", withIntermediateDirectories: false)
        let path = folder + "/with space/a b%c#d?e ü.bin"
        let content = FileLoaderTesting.bytes(count: 1000, seed: 7)
        try TestFiles.write(content, to: path)
        let loaders = try FileLoaderTesting.loaders()
        let url = FileLoaderTesting.fileURL(path)
        #expect(url.contains("with%20space/a%20b%25c%23d%3Fe%20%C3%BC.bin"))
        #expect(try await loaders.load(url: url, options: LoadOptions()) == content)
        // The plain path is taken literally: '%', '#' and '?' are part of the name.
        #expect(try await loaders.load(url: path, options: LoadOptions()) == content)
    }

    @Test("file://localhost/, file:/ and an upper-case scheme name the same file; a fragment is ignored")
    func urlSpellings() async throws {
        let folder = try FileLoaderTesting.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let content = FileLoaderTesting.bytes(count: 300, seed: 3)
        let path = try TestFiles.write(content, to: folder + "/x.bin")
        let loaders = try FileLoaderTesting.loaders()
        for url in [FileLoaderTesting.fileURL(path, host: "localhost"), FileLoaderTesting.fileURL(path, host: "LocalHost"),
                    "file:" + path, "FILE://" + path, "file://" + path + "#page=2", "file://" + path + "?v=1"] {
            #expect(try await loaders.load(url: url, options: LoadOptions()) == content, "\(url)")
        }
    }

    @Test("a file exactly at the size limit loads")
    func exactlyAtLimit() async throws {
        let folder = try FileLoaderTesting.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try TestFiles.write(FileLoaderTesting.bytes(count: 1000), to: folder + "/k.bin")
        let bytes = try await FileLoaderTesting.loaders().load(url: path, options: LoadOptions(maxBytes: 1000))
        #expect(bytes.count == 1000)
    }

    @Test("files that report size 0 but have content (/proc) still load")
    func procFile() async throws {
        let bytes = try await FileLoaderTesting.loaders().load(url: "/proc/self/maps", options: LoadOptions())
        #expect(!bytes.isEmpty)
    }

    @Test("eight concurrent loads of one file all arrive intact")
    func concurrentLoads() async throws {
        let folder = try FileLoaderTesting.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let content = FileLoaderTesting.bytes(count: 3 * 1024 * 1024 + 1, seed: 11)
        let path = try TestFiles.write(content, to: folder + "/shared.bin")
        let loaders = try FileLoaderTesting.loaders()
        let intact = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { try await loaders.load(url: path, options: LoadOptions()) == content }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(intact == 8)
    }
}
