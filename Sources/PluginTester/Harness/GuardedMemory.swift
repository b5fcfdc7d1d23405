#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Pixel buffers whose last byte sits just before an inaccessible guard page, so that a plugin writing past the
/// exact size `alloc_pixels` gave it faults at once, and a fault handler that turns that fault into a failed check
/// with a precise message instead of an anonymous SIGSEGV.
///
/// The slack before the buffer (up to the start of its first page) is filled with a canary pattern and checked
/// when the buffer is released, which catches writes before the start. Test-only: one mapping per buffer.
enum GuardedMemory {
    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
    static let canaryByte: UInt8 = 0xA5

    /// What a fault in a registered range means.
    enum Region: UInt {
        /// The page after a pixel buffer.
        case pixelGuard = 1
        /// The page after a borrowed input buffer.
        case inputGuard = 2
        /// A borrowed input buffer, made read-only.
        case input = 3
    }

    /// `@unchecked Sendable`: plain addresses of a mapping; whoever holds the Block owns it (one owner at a time).
    struct Block: @unchecked Sendable {
        let base: UnsafeMutableRawPointer
        let mappedBytes: Int
        let buffer: UnsafeMutablePointer<UInt8>
        let byteCount: Int
    }

    /// Ranges known to the fault handler: (first byte, end, region) triples in a fixed C table.
    /// `nonisolated(unsafe)`: the SIGSEGV handler reads it, where no lock may be taken (entries change atomically).
    private static let capacity = 8192
    nonisolated(unsafe) private static let ranges: UnsafeMutablePointer<UInt> = {
        let table = UnsafeMutablePointer<UInt>.allocate(capacity: capacity * 3)
        table.initialize(repeating: 0, count: capacity * 3)
        return table
    }()
    private static let lock = Mutex<Int>(0)  // used slots

    /// A zeroed buffer of exactly `byteCount` bytes (0 is allowed: an empty buffer right at the guard page)
    /// followed by a guard page; nil when mmap fails.
    static func allocate(byteCount: Int, guardRegion: Region = .pixelGuard) -> Block? {
        guard byteCount >= 0 else { return nil }
        let dataPages = (byteCount + 64 + pageSize - 1) / pageSize
        let mapped = (dataPages + 1) * pageSize
        guard let base = mmap(nil, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
              base != MAP_FAILED else { return nil }
        let guardPage = base + dataPages * pageSize
        mprotect(guardPage, pageSize, PROT_NONE)
        let buffer = (guardPage - byteCount).assumingMemoryBound(to: UInt8.self)
        let slack = UnsafeMutableRawPointer(buffer) - base
        base.initializeMemory(as: UInt8.self, repeating: canaryByte, count: slack)
        register(guardPage, guardPage + pageSize, guardRegion)
        return Block(base: base, mappedBytes: mapped, buffer: buffer, byteCount: byteCount)
    }

    /// A read-only copy of `bytes` that ends at a guard page: reading past the end or writing into it faults.
    static func input(_ bytes: [UInt8]) -> Block? {
        guard let block = allocate(byteCount: bytes.count, guardRegion: .inputGuard) else { return nil }
        bytes.withUnsafeBufferPointer { source in
            if let address = source.baseAddress { block.buffer.update(from: address, count: bytes.count) }
        }
        mprotect(block.base, block.mappedBytes - pageSize, PROT_READ)
        register(block.base, block.base + block.mappedBytes - pageSize, .input)
        return block
    }

    /// True when the canary before the buffer is intact.
    static func canaryIntact(_ block: Block) -> Bool {
        let slack = UnsafeMutableRawPointer(block.buffer) - block.base
        let bytes = block.base.assumingMemoryBound(to: UInt8.self)
        for index in 0..<slack where bytes[index] != canaryByte { return false }
        return true
    }

    static func release(_ block: Block) {
        unregister(block.base)
        unregister(block.base + block.mappedBytes - pageSize)
        munmap(block.base, block.mappedBytes)
    }

    private static func register(_ start: UnsafeMutableRawPointer, _ end: UnsafeMutableRawPointer, _ region: Region) {
        lock.withLock { used in
            func fill(_ slot: Int) {
                ranges[slot * 3 + 1] = UInt(bitPattern: end)
                ranges[slot * 3 + 2] = region.rawValue
                ranges[slot * 3] = UInt(bitPattern: start)
            }
            for slot in 0..<used where ranges[slot * 3] == 0 { fill(slot); return }
            guard used < capacity else { return }
            fill(used)
            used += 1
        }
    }

    private static func unregister(_ start: UnsafeMutableRawPointer) {
        lock.withLock { used in
            for slot in 0..<used where ranges[slot * 3] == UInt(bitPattern: start) { ranges[slot * 3] = 0 }
        }
    }

    // MARK: Fault handling

    /// Installs SIGSEGV and SIGBUS handlers that report faults in registered ranges as a failed check, and
    /// otherwise let the fault kill the process as usual (the parent then reports "crashed"). Call before any
    /// baseline of signal handlers is taken, so the global-state check does not count these as the plugin's.
    static func installFaultHandler() {
        _ = ranges  // initialise the lazy table now, never inside the handler
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { signal, info, _ in
            let address = UInt(bitPattern: info?.pointee._sifields._sigfault.si_addr)
            if let region = GuardedMemory.region(of: address) { GuardedMemory.report(region) }
            // Not ours: back to the default action, which the faulting instruction triggers again on return.
            var restore = sigaction()
            restore.__sigaction_handler.sa_handler = SIG_DFL
            sigaction(signal, &restore, nil)
        }
        action.sa_flags = SA_SIGINFO | Int32(SA_NODEFER)
        sigemptyset(&action.sa_mask)
        sigaction(SIGSEGV, &action, nil)
        sigaction(SIGBUS, &action, nil)
    }

    /// Reads the table without locking: a signal handler must not lock; a stale slot only risks a vaguer report.
    private static func region(of address: UInt) -> Region? {
        for slot in 0..<capacity {
            let start = ranges[slot * 3], end = ranges[slot * 3 + 1]
            if start == 0 && end == 0 { break }
            if start != 0, address >= start, address < end { return Region(rawValue: ranges[slot * 3 + 2]) }
        }
        return nil
    }

    /// Async-signal-safe: writes a fixed line and exits.
    private static func report(_ region: Region) {
        let text: StaticString
        switch region {
        case .pixelGuard:
            text = """
                result {"status":"failed","message":"wrote past the end of a pixel buffer from alloc_pixels (hit the guard page after its last byte): write only height rows of width pixels, stride apart"}

                """
        case .inputGuard:
            text = """
                result {"status":"failed","message":"read past the end of the borrowed input bytes (hit the guard page after the last byte): never read beyond request->size"}

                """
        case .input:
            text = """
                result {"status":"failed","message":"wrote into the borrowed input bytes (they are read-only for the plugin)"}

                """
        }
        text.withUTF8Buffer { bytes in _ = Glibc.write(CheckChannel.fd, bytes.baseAddress, bytes.count) }
        _exit(3)
    }
}
