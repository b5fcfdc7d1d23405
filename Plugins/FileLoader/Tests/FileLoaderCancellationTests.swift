import Foundation
import PipelineHost
import Testing
import TestSupport

/// Cancellation and resource hygiene.
@Suite("File loader: cancellation")
struct FileLoaderCancellationTests {
    @Test("cancelling the awaiting task stops a big load with CANCELLED")
    func cancelBigLoad() async throws {
        let folder = try FileLoaderTesting.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A 256 MiB sparse file: free to create, and ~1000 chunks to read, so the cancel lands long before the end.
        let path = folder + "/huge.bin"
        let fd = open(path, O_CREAT | O_WRONLY, 0o600)
        #expect(fd >= 0 && ftruncate(fd, 256 << 20) == 0)
        close(fd)
        let loaders = try FileLoaderTesting.loaders()
        let load = Task { try await loaders.load(url: path, options: LoadOptions(maxBytes: nil)) }
        load.cancel()
        switch await load.result {
        case .success(let bytes):
            Issue.record("the load finished with \(bytes.count) bytes although it was cancelled")
        case .failure(let error):
            #expect((error as? PipelineError)?.status == .cancelled, "\(error)")
        }
        #expect(!FileLoaderTesting.openPaths().contains(path), "the file is closed once the load has completed")
    }

    @Test("no descriptor stays open after successful, failed and limited loads")
    func noDescriptorLeaks() async throws {
        let folder = try FileLoaderTesting.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try TestFiles.write(FileLoaderTesting.bytes(count: 600_000), to: folder + "/f.bin")
        let loaders = try FileLoaderTesting.loaders()
        _ = try await loaders.load(url: path, options: LoadOptions())
        _ = try? await loaders.load(url: path, options: LoadOptions(maxBytes: 10))
        _ = try? await loaders.load(url: folder, options: LoadOptions())
        let open = FileLoaderTesting.openPaths().filter { $0.hasPrefix(folder) }
        #expect(open.isEmpty, "still open: \(open)")
    }
}
