#if canImport(Glibc)
import Glibc
#endif
import PluginAPI
import Synchronization

/// A large local file that its coder reads by ranges (`IP_DECODE_EXTENSION_SOURCE`) instead of the host reading
/// it whole: a 300 MB TIFF's thumbnail then costs the strips being decoded and the output, not the file's size
/// in resident memory as well (what libvips gets from reading files itself).
///
/// Only for coders that run in this process: an isolated worker is sent the whole bytes (its sandbox opens no
/// file), so the vector coders, isolated by default, always get a copy.
public final class RangedSource: Sendable {
    /// Files below this size are read whole: one read is cheaper than many small ones, and a coder's fast path may
    /// need all the bytes at once (PNG's one-shot inflate of every row). 16 MiB.
    public static let defaultThreshold = 16 << 20
    /// What the coder is handed in memory: enough for sniffing and for any header this project's coders read.
    public static let prefixLength = 64 << 10

    private let descriptor: Int32
    /// The file's size when it was opened; a file that shrinks later reads short, which coders report as truncated.
    public let size: UInt64
    /// The file's first `prefixLength` bytes (all of them for a smaller file).
    public let prefix: [UInt8]
    private let readCount = Atomic<UInt64>(0)

    /// Bytes the coders have read so far, the prefix not counted: what a pyramid's thumbnail saves shows here.
    public var bytesRead: UInt64 { readCount.load(ordering: .relaxed) }

    /// Opens the local file `url` names (an absolute path, or a `file:` URL without a host) when it is a regular
    /// file of at least `threshold` bytes. Nil for anything else, an error included: the caller then loads the URL
    /// as any other source, through the file loader, which says why it cannot.
    public convenience init?(url: String, threshold: Int = defaultThreshold) {
        guard let path = LocalFilePath.parse(url) else { return nil }
        let fd = (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) }
        }
        guard fd >= 0 else { return nil }
        self.init(adopting: fd, threshold: threshold)
    }

    /// Reads an already open file, for an embedder that opens its sources itself (a service opening files beneath
    /// its root folder, so that what is read is what was checked): the source keeps a duplicate of `descriptor`,
    /// which the caller still owns. Nil when it is not a regular file of at least `threshold` bytes.
    public convenience init?(descriptor: Int32, threshold: Int = defaultThreshold) {
        let own = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard own >= 0 else { return nil }
        self.init(adopting: own, threshold: threshold)
    }

    /// Takes `fd` over: kept when it qualifies, closed otherwise.
    private init?(adopting fd: Int32, threshold: Int) {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size >= threshold, info.st_size > 0 else {
            close(fd)
            return nil
        }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0, flags & O_NONBLOCK != 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        var prefix = [UInt8](repeating: 0, count: min(Self.prefixLength, Int(info.st_size)))
        let read = prefix.withUnsafeMutableBytes { Self.readFully(fd, at: 0, into: $0) }
        guard read > 0 else {
            close(fd)
            return nil
        }
        prefix.removeLast(prefix.count - read)
        descriptor = fd
        size = UInt64(info.st_size)
        self.prefix = prefix
    }

    deinit { close(descriptor) }

    /// pread until `buffer` is full or the file ends; -1 on an error other than an interrupted call.
    private static func readFully(_ fd: Int32, at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = pread(fd, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset) + off_t(filled))
            if count < 0 {
                if errno == EINTR { continue }
                return filled > 0 ? filled : -1
            }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// The extension ahead of `next` on an options chain, for the duration of `body`.
    func withExtension<R>(next: UnsafePointer<ip_decode_extension>?, _ body: (UnsafePointer<ip_decode_extension>) throws -> R) rethrows -> R {
        var value = ip_decode_source(
            head: ip_decode_extension(struct_size: UInt32(MemoryLayout<ip_decode_source>.size), id: Self.extensionID.pointer, next: next),
            size: size, context: Unmanaged.passUnretained(self).toOpaque(), read_at: Self.readAt)
        return try withExtendedLifetime(self) {
            try withUnsafePointer(to: &value) { pointer in
                try body(UnsafeRawPointer(pointer).assumingMemoryBound(to: ip_decode_extension.self))
            }
        }
    }

    private static let extensionID = UnsafeSendablePointer(pointer: permanentCString(IP_DECODE_EXTENSION_SOURCE))

    /// The C reader: the context is the source, kept alive by `withExtension` for the call.
    private static let readAt: @convention(c) (UnsafeMutableRawPointer?, UInt64, UnsafeMutableRawPointer?, Int) -> Int64 = {
        context, offset, buffer, length in
        guard let context, let buffer, length > 0 else { return length == 0 ? 0 : -1 }
        let source = Unmanaged<RangedSource>.fromOpaque(context).takeUnretainedValue()
        guard offset < source.size, offset <= UInt64(Int64.max) else { return 0 }
        let count = readFully(source.descriptor, at: offset, into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
        if count > 0 { source.readCount.add(UInt64(count), ordering: .relaxed) }
        return Int64(count)
    }
}

/// The path of a local file named by an absolute path or a `file:` URL (no host or `localhost`; percent-decoded;
/// a query or fragment dropped), as the file loader reads it. Nil for any other URL, or one with a NUL.
enum LocalFilePath {
    static func parse(_ url: String) -> [UInt8]? {
        var bytes = Array(url.utf8)[...]
        if bytes.first == UInt8(ascii: "/") { return bytes.contains(0) ? nil : Array(bytes) }
        guard bytes.count > 5, String(decoding: bytes.prefix(5), as: UTF8.self).lowercased() == "file:" else { return nil }
        bytes = bytes.dropFirst(5)
        if let end = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { bytes = bytes[..<end] }
        if bytes.starts(with: "//".utf8) {
            bytes = bytes.dropFirst(2)
            let slash = bytes.firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
            let host = String(decoding: bytes[..<slash], as: UTF8.self).lowercased()
            guard host.isEmpty || host == "localhost" else { return nil }
            bytes = bytes[slash...]
        }
        guard bytes.first == UInt8(ascii: "/") else { return nil }
        var path: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%") {
                guard bytes.endIndex - index >= 3, let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
                else { return nil }
                path.append(value)
                index += 3
            } else {
                path.append(bytes[index])
                index += 1
            }
        }
        return path.contains(0) ? nil : path
    }
}
