import Foundation
import PipelineHost
import Testing
import TestSupport

/// Failures: each gets the right status and a message that names the file and the reason.
@Suite("File loader: errors")
struct FileLoaderErrorTests {
    @Test("a missing file is NOT_FOUND: \"no such file: <path>\"")
    func missingFile() async throws {
        let folder = try FileLoaderTesting.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/missing.png"
        let error = try await FileLoaderTesting.loadError(path)
        #expect(error?.status == .notFound)
        #expect(FileLoaderTesting.message(of: error) == "no such file: \(path)")
    }

    @Test("a path through a regular file is NOT_FOUND too")
    func parentIsAFile() async throws {
        let folder = try FileLoaderTesting.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try TestFiles.write([1, 2, 3], to: folder + "/file")
        let error = try await FileLoaderTesting.loadError(file + "/child.png")
        #expect(error?.status == .notFound)
        #expect(FileLoaderTesting.message(of: error).contains("a parent is not a directory"))
    }

    @Test("an unreadable file is IO: \"permission denied: <path>\"",
          .disabled(if: getuid() == 0, "running as root, which is never denied a read, so EACCES cannot be provoked"))
    func permissionDenied() async throws {
        let folder = try FileLoaderTesting.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try TestFiles.write([1, 2, 3], to: folder + "/secret.png")
        chmod(path, 0)
        let error = try await FileLoaderTesting.loadError(path)
        #expect(error?.status == .io)
        #expect(FileLoaderTesting.message(of: error) == "permission denied: \(path)")
    }

    @Test("a directory is IO: \"is a directory: <path>\"")
    func directory() async throws {
        let folder = try FileLoaderTesting.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let error = try await FileLoaderTesting.loadError(folder)
        #expect(error?.status == .io)
        #expect(FileLoaderTesting.message(of: error) == "is a directory: \(folder)")
    }

    @Test("a FIFO without a writer is refused at once instead of blocking")
    func fifo() async throws {
        let folder = try FileLoaderTesting.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/pipe"
        #expect(mkfifo(path, 0o600) == 0)
        let error = try await FileLoaderTesting.loadError(path)
        #expect(error?.status == .io)
        #expect(FileLoaderTesting.message(of: error) == "not a regular file (FIFO): \(path)")
    }

    @Test("a device such as /dev/null is not a regular file")
    func device() async throws {
        let error = try await FileLoaderTesting.loadError("/dev/null")
        #expect(error?.status == .io)
        #expect(FileLoaderTesting.message(of: error) == "not a regular file (character device): /dev/null")
    }

    @Test("a file larger than max_bytes is LIMIT_EXCEEDED before anything is read")
    func tooLarge() async throws {
        let folder = try FileLoaderTesting.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try TestFiles.write(FileLoaderTesting.bytes(count: 1000), to: folder + "/big.png")
        let error = try await FileLoaderTesting.loadError(path, maxBytes: 999)
        #expect(error?.status == .limitExceeded)
        #expect(FileLoaderTesting.message(of: error) == "\(path) is 1000 bytes, over the limit of 999 bytes")
    }

    @Test("the limit also holds while reading, for files whose size is not known up front")
    func limitWhileReading() async throws {
        // /proc files report size 0, like a file that grows after it was opened.
        let error = try await FileLoaderTesting.loadError("/proc/self/maps", maxBytes: 16)
        #expect(error?.status == .limitExceeded)
        #expect(FileLoaderTesting.message(of: error).contains("grew past the limit of 16 bytes"))
    }

    @Test("a file URL naming another host is UNSUPPORTED, and says so")
    func remoteHost() async throws {
        let error = try await FileLoaderTesting.loadError("file://fileserver/share/a.png")
        #expect(error?.status == .unsupported)
        #expect(FileLoaderTesting.message(of: error).contains("another host ('fileserver')"))
    }

    @Test("a relative path is UNSUPPORTED: the loader never resolves against the working directory")
    func relativePath() async throws {
        let error = try await FileLoaderTesting.loadError("images/a.png")
        #expect(error?.status == .unsupported)
        #expect(FileLoaderTesting.message(of: error).contains("not an absolute path"))
    }

    @Test("malformed percent escapes and an encoded NUL are INVALID_DATA",
          arguments: ["file:///tmp/a%zz.png", "file:///tmp/a%4", "file:///tmp/a%00b.png"])
    func malformedURL(url: String) async throws {
        let error = try await FileLoaderTesting.loadError(url)
        #expect(error?.status == .invalidData)
        #expect(FileLoaderTesting.message(of: error).contains(url))
    }
}
