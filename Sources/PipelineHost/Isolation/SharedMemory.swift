#if canImport(Glibc)
import Glibc
#endif

/// Input bytes and output pixels cross between host and worker in memfd shared memory, never through the socket:
/// only the descriptor travels (SCM_RIGHTS), so a 12-megapixel result costs one mapping, not a 48 MB copy.
///
/// Outputs are sealed by the worker (no shrink, no grow, no write, no further seals) before they are sent, and the
/// host refuses an unsealed descriptor: a compromised worker can then neither scribble on pixels the host already
/// handed out nor truncate the file under the host's mapping (which would SIGBUS the host).
enum SharedMemory {
    /// The seals a worker's output must carry.
    static let outputSeals = LinuxSystem.F_SEAL_SHRINK | LinuxSystem.F_SEAL_GROW | LinuxSystem.F_SEAL_WRITE | LinuxSystem.F_SEAL_SEAL

    /// Names visible in /proc/<pid>/fd and /proc/<pid>/maps ("/memfd:imagepipe-in (deleted)"), so leaks are findable.
    static let inputName = "imagepipe-in"
    static let outputName = "imagepipe-out"

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ what: String, _ code: Int32 = errno) { description = "\(what): \(LinuxSystem.describe(code))" }
    }

    /// A new memfd holding a copy of `bytes` (a one-shot input too large for the worker's arena).
    static func makeInput(_ bytes: UnsafeRawBufferPointer) throws -> Int32 {
        let fd = LinuxSystem.memfdCreate(inputName, sealable: false)
        guard fd >= 0 else { throw Failure("memfd_create") }
        do {
            try write(bytes, to: fd)
        } catch {
            LinuxSystem.closeDescriptor(fd)
            throw error
        }
        return fd
    }

    /// pwrite, not mmap + memcpy: the kernel fills fresh shmem pages without a page fault per page, about twice as
    /// fast for megabytes.
    static func write(_ bytes: UnsafeRawBufferPointer, to fd: Int32, at offset: Int = 0) throws {
        var written = 0
        while written < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + written, bytes.count - written, off_t(offset + written))
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw Failure("writing \(bytes.count) bytes to shared memory") }
            written += n
        }
    }

    /// A read-only view of a descriptor's first `size` bytes (all of it when nil): the worker's view of its input.
    static func mapInput(_ fd: Int32, size: Int? = nil) throws -> MappedRegion {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure("fstat of the input") }
        let size = size ?? Int(info.st_size)
        guard Int(info.st_size) >= size else { throw Failure("the input holds \(info.st_size) bytes, not \(size)", EINVAL) }
        if size == 0 { return MappedRegion(pointer: nil, length: 0) }
        guard let pointer = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), pointer != MAP_FAILED else { throw Failure("mmap of the input") }
        return MappedRegion(pointer: pointer, length: size)
    }

    /// Writes `rows` (height rows of rowBytes each, stride apart) tightly packed into a new sealed memfd.
    /// Returns the descriptor; the caller sends and closes it.
    static func makeOutput(rows: UnsafePointer<UInt8>, stride: Int, rowBytes: Int, height: Int) throws -> Int32 {
        let fd = LinuxSystem.memfdCreate(outputName, sealable: true)
        guard fd >= 0 else { throw Failure("memfd_create") }
        var ok = false
        defer { if !ok { LinuxSystem.closeDescriptor(fd) } }
        if stride == rowBytes {
            try write(UnsafeRawBufferPointer(start: rows, count: rowBytes * height), to: fd)
        } else {
            for y in 0..<height {
                try write(UnsafeRawBufferPointer(start: rows + y * stride, count: rowBytes), to: fd, at: y * rowBytes)
            }
        }
        guard fcntl(fd, LinuxSystem.F_ADD_SEALS, outputSeals) == 0 else { throw Failure("sealing the output") }
        ok = true
        return fd
    }

    /// A sealed memfd holding several images' rows one after another, tightly packed (an animation's frames).
    static func makeOutput(images: [Image]) throws -> Int32 {
        let fd = LinuxSystem.memfdCreate(outputName, sealable: true)
        guard fd >= 0 else { throw Failure("memfd_create") }
        var ok = false
        defer { if !ok { LinuxSystem.closeDescriptor(fd) } }
        var offset = 0
        for image in images {
            let rowBytes = image.width * image.pixelFormat.bytesPerPixel
            try image.withUnsafeRows { rows in
                for y in 0..<image.height {
                    try write(UnsafeRawBufferPointer(start: rows + y * image.stride, count: rowBytes), to: fd, at: offset)
                    offset += rowBytes
                }
            }
        }
        guard fcntl(fd, LinuxSystem.F_ADD_SEALS, outputSeals) == 0 else { throw Failure("sealing the output") }
        ok = true
        return fd
    }

    /// Maps a worker's sealed output as the storage of an Image (no copy). Closes `fd` in every case.
    static func adoptOutput(_ fd: Int32, byteCount: Int) throws -> PixelStorage {
        defer { LinuxSystem.closeDescriptor(fd) }
        let seals = fcntl(fd, LinuxSystem.F_GET_SEALS)
        guard seals >= 0, seals & outputSeals == outputSeals else {
            throw Failure("the worker's output is not sealed (seals \(seals))", EPERM)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure("fstat of the output") }
        guard byteCount > 0, Int(info.st_size) >= byteCount else {
            throw Failure("the output holds \(info.st_size) bytes, not \(byteCount)", EINVAL)
        }
        // Private and writable: reads share the worker's pages; a write (only ever by the image's creator) copies.
        guard let pointer = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0), pointer != MAP_FAILED else {
            throw Failure("mmap of the output")
        }
        return PixelStorage(mapping: pointer, byteCount: byteCount)
    }
}

/// A mapping released with munmap when this value's owner is done (`unmap()`), for the worker's input.
struct MappedRegion {
    let pointer: UnsafeMutableRawPointer?
    let length: Int

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pointer, count: length) }

    func unmap() {
        if let pointer, length > 0 { munmap(pointer, length) }
    }
}

/// A worker's reusable input buffer: one memfd that the host keeps mapped read-write and the worker read-only,
/// so an input costs one memcpy instead of fresh shared pages each time (allocating and freeing shmem pages
/// costs about as much again as the copy: ~0.3 ms per MB on the reference machine).
///
/// Its pages stay resident at the high-water mark of the inputs copied into it, so inputs above the pool's
/// `inputArenaLimit` travel in one-shot memfds instead. Owned by one `WorkerProcess`.
final class InputArena {
    let pointer: UnsafeMutableRawPointer
    let capacity: Int
    /// Sent once with the first request that uses this arena, then closed (the mappings keep the memory).
    private(set) var descriptor: Int32
    let generation: Int

    init(capacity: Int, generation: Int) throws {
        let fd = LinuxSystem.memfdCreate(SharedMemory.inputName, sealable: false)
        guard fd >= 0 else { throw SharedMemory.Failure("memfd_create") }
        guard ftruncate(fd, off_t(capacity)) == 0,
              let pointer = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), pointer != MAP_FAILED else {
            let code = errno
            LinuxSystem.closeDescriptor(fd)
            throw SharedMemory.Failure("an input arena of \(capacity) bytes", code)
        }
        self.pointer = pointer
        self.capacity = capacity
        self.generation = generation
        descriptor = fd
    }

    /// The capacity for an input of `size` bytes: a power of two from 1 MiB, at most `limit`.
    static func capacity(for size: Int, limit: Int) -> Int {
        var capacity = 1 << 20
        while capacity < size { capacity <<= 1 }
        return min(capacity, limit)
    }

    func closeDescriptor() {
        LinuxSystem.closeDescriptor(descriptor)
        descriptor = -1
    }

    deinit {
        munmap(pointer, capacity)
        LinuxSystem.closeDescriptor(descriptor)
    }
}
