import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whole-file reads and writes of bytes, for fixtures and reference-tool outputs.
public enum TestFiles {
    public static func read(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Writes `bytes` to `path` (creating or replacing the file) and returns the path.
    @discardableResult
    public static func write(_ bytes: [UInt8], to path: String) throws -> String {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw TestSupportError("cannot write \(path)")
        }
        return path
    }

    /// Copies a program to `path` (mode 755) so that it can be run at once. The copy is written through a descriptor
    /// opened close-on-exec: the tests run in parallel and spawn children all the time, and a child that inherited a
    /// still-open write descriptor of the copy makes exec of it fail with ETXTBSY ("Text file busy") for as long as
    /// that child lives, which is how FileManager.copyItem's copy failed one run of the install tests.
    public static func copyExecutable(_ source: String, to path: String) throws {
        let bytes = try read(source)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw TestSupportError("cannot create \(path): errno \(errno)") }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw TestSupportError("cannot write \(path): errno \(errno)") }
            offset += written
        }
        guard fchmod(descriptor, 0o755) == 0 else { throw TestSupportError("cannot chmod \(path): errno \(errno)") }
    }
}
