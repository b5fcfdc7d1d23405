import PluginAPI
import VersionedStructs
import Synchronization

/// A coder inside a loaded plugin: the host's adapter over its `ip_coder` vtable.
///
/// Calls into coders that do not declare themselves thread-safe are serialised process-wide, across hosts and
/// plugins: such libraries (librsvg, poppler) share process-global state underneath (cairo, fontconfig, FreeType),
/// so a lock per coder or per host would still let two of them collide. Thread-safe coders are called directly.
public final class PluginCoder: Sendable {
    public let descriptor: CoderDescriptor
    /// The plugin file that provides the coder (a worker opens exactly this file for it).
    public let pluginPath: String
    private let table: LazyTable<CoderEntryPoints>

    init(descriptor: CoderDescriptor, table: LazyTable<CoderEntryPoints>, pluginPath: String) {
        self.descriptor = descriptor
        self.table = table
        self.pluginPath = pluginPath
    }

    /// The coder's vtable, opening its plugin on first use.
    func vtable() throws -> CoderEntryPoints { try table.get() }

    /// Opens the coder's plugin now, so that a later call does not wait for dlopen. A one-shot program calls it on
    /// another thread for its encoder while the decode runs (in a worker, the host thread only waits). A plugin
    /// that fails to open fails again, with its reason, at the real call.
    public func preload() { _ = try? table.get() }

    /// A capability flag promises a slot; a confirm-by-sniff pattern needs sniff.
    static func checkSlots(_ table: CoderEntryPoints, _ d: CoderDescriptor) throws {
        func require(_ present: Bool, _ what: String) throws {
            if !present { throw ABIReading.Failure("coder \(d.id) claims \(what) but its slot is empty") }
        }
        let caps = d.capabilities
        guard caps.contains(.decode) || caps.contains(.encode) else {
            throw ABIReading.Failure("coder \(d.id) can neither decode nor encode")
        }
        if caps.contains(.decode) { try require(table.decode != nil && table.probe != nil, "decode (probe + decode)") }
        if caps.contains(.encode) { try require(table.encode != nil, "encode") }
        if caps.contains(.animated) {
            try require(table.framesOpen != nil && table.table.frames_next != nil && table.table.frames_close != nil, "animation")
        }
        if caps.contains(.incremental) {
            try require(table.incrementalOpen != nil && table.table.incremental_update != nil && table.table.incremental_close != nil,
                        "incremental decoding")
        }
        if caps.contains(.transcodes) {
            try require(table.transcode != nil, "transcoding")
            if d.transcodes.isEmpty { throw ABIReading.Failure("coder \(d.id) claims transcoding but lists no transcodes pairs") }
        }
        if d.patterns.contains(where: \.confirmWithSniff) { try require(table.sniff != nil, "confirm-by-sniff patterns") }
    }

    var isThreadSafe: Bool { descriptor.capabilities.contains(.threadSafe) }

    /// Runs a plugin call under the serial lock when the coder is not thread-safe.
    func calling<R>(_ body: () throws -> R) rethrows -> R {
        if isThreadSafe { return try body() }
        return try unsafeCodersLock.withLock { _ in try body() }
    }

    /// Asks the coder to confirm a candidate match.
    func sniff(_ data: UnsafeRawBufferPointer) -> PluginStatus {
        guard let table = try? vtable() else { return .internalError }
        guard let sniff = table.sniff else { return .ok }
        return calling {
            PluginStatus(abi: sniff(data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count))
        }
    }
}

/// The one lock around every coder that is not thread-safe (see `PluginCoder`).
private let unsafeCodersLock = Mutex(())

/// A message buffer for one plugin call.
struct MessageBuffer {
    private var storage = [CChar](repeating: 0, count: 1024)

    mutating func withMessage<R>(_ body: (ip_message) throws -> R) rethrows -> R {
        try storage.withUnsafeMutableBufferPointer { buffer in
            try body(ip_message(buffer: buffer.baseAddress, capacity: buffer.count))
        }
    }

    var text: String {
        storage.withUnsafeBufferPointer { buffer in
            let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
