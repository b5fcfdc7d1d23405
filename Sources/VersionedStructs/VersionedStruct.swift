import PluginAPI

/// The one rule for reading a versioned ABI struct that the other side of the plugin boundary made — used by the
/// host (plugin tables), PluginKit (the host's requests) and the plugin tester alike, so all three accept and
/// refuse the same structs.
///
/// Every such struct starts with `uint32_t struct_size`. A reader copies `min(struct_size, the size it knows)`
/// bytes into a zeroed value: fields an older writer lacks read as their zero defaults, fields a newer writer
/// added are ignored. A `struct_size` below the struct's size in ABI 1.0 (its floor: no 1.0 writer can make a
/// smaller one) or above `IP_MAX_STRUCT_SIZE` means the memory is not what it claims, and the read fails.
public enum VersionedStruct {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// Each versioned struct's size in ABI 1.0, from the frozen headers (Tests/Fixtures/abi-1.0; a test compares
    /// them). Frozen: when a later minor grows a struct, its floor here stays the 1.0 size, so that tables from
    /// 1.0 plugins keep loading.
    private static let floors: [ObjectIdentifier: Int] = [
        ObjectIdentifier(ip_plugin_entry.self): 88, ObjectIdentifier(ip_host.self): 96,
        ObjectIdentifier(ip_coder_factory.self): 16, ObjectIdentifier(ip_coder.self): 96,
        ObjectIdentifier(ip_coder_descriptor.self): 96, ObjectIdentifier(ip_magic_pattern.self): 48,
        ObjectIdentifier(ip_decode_request.self): 40, ObjectIdentifier(ip_decode_options.self): 56,
        ObjectIdentifier(ip_limits.self): 32, ObjectIdentifier(ip_decode_extension.self): 24,
        ObjectIdentifier(ip_decode_tint.self): 32, ObjectIdentifier(ip_decode_password.self): 32,
        ObjectIdentifier(ip_image.self): 104, ObjectIdentifier(ip_image_info.self): 384,
        ObjectIdentifier(ip_encode_options.self): 24, ObjectIdentifier(ip_byte_sink.self): 24,
        ObjectIdentifier(ip_loader_factory.self): 16, ObjectIdentifier(ip_loader.self): 40,
        ObjectIdentifier(ip_loader_descriptor.self): 56, ObjectIdentifier(ip_load_request.self): 56,
        ObjectIdentifier(ip_load_callbacks.self): 40, ObjectIdentifier(ip_cache_factory.self): 16,
        ObjectIdentifier(ip_cache.self): 72, ObjectIdentifier(ip_cache_descriptor.self): 48,
        ObjectIdentifier(ip_cache_stats.self): 40, ObjectIdentifier(ip_place_request.self): 40,
        ObjectIdentifier(ip_placement.self): 48,
        // Born in 1.1: the floor is the size it was born with.
        ObjectIdentifier(ip_transcode_request.self): 56,
        ObjectIdentifier(ip_put_request.self): 56, ObjectIdentifier(ip_object_info.self): 24,
    ]

    /// The 1.0 size of `type`, by name for the tests that compare it with the frozen headers.
    public static let floorsByName: [String: Int] = [
        "ip_plugin_entry": floor(of: ip_plugin_entry.self), "ip_host": floor(of: ip_host.self),
        "ip_coder_factory": floor(of: ip_coder_factory.self), "ip_coder": floor(of: ip_coder.self),
        "ip_coder_descriptor": floor(of: ip_coder_descriptor.self), "ip_magic_pattern": floor(of: ip_magic_pattern.self),
        "ip_decode_request": floor(of: ip_decode_request.self), "ip_decode_options": floor(of: ip_decode_options.self),
        "ip_limits": floor(of: ip_limits.self), "ip_decode_extension": floor(of: ip_decode_extension.self),
        "ip_decode_tint": floor(of: ip_decode_tint.self), "ip_decode_password": floor(of: ip_decode_password.self),
        "ip_image": floor(of: ip_image.self), "ip_image_info": floor(of: ip_image_info.self),
        "ip_encode_options": floor(of: ip_encode_options.self), "ip_byte_sink": floor(of: ip_byte_sink.self),
        "ip_loader_factory": floor(of: ip_loader_factory.self), "ip_loader": floor(of: ip_loader.self),
        "ip_loader_descriptor": floor(of: ip_loader_descriptor.self), "ip_load_request": floor(of: ip_load_request.self),
        "ip_load_callbacks": floor(of: ip_load_callbacks.self), "ip_cache_factory": floor(of: ip_cache_factory.self),
        "ip_cache": floor(of: ip_cache.self), "ip_cache_descriptor": floor(of: ip_cache_descriptor.self),
        "ip_cache_stats": floor(of: ip_cache_stats.self), "ip_place_request": floor(of: ip_place_request.self),
        "ip_placement": floor(of: ip_placement.self),
    ]

    /// The 1.0 size of a versioned struct. A type that is not a versioned ABI struct is a programming error.
    public static func floor<T>(of type: T.Type) -> Int {
        guard let size = floors[ObjectIdentifier(type)] else {
            preconditionFailure("\(T.self) is not a versioned ABI struct")
        }
        return size
    }

    /// A copy of the struct at `pointer` under the rule above; `name` says which struct in a failure.
    public static func read<T>(_ pointer: UnsafeRawPointer?, as type: T.Type, named name: String) throws(Failure) -> T {
        guard let pointer else { throw Failure("\(name) is NULL") }
        let declared = Int(pointer.loadUnaligned(as: UInt32.self))
        let floor = floor(of: type)
        if declared < floor {
            throw Failure("\(name).struct_size is \(declared), smaller than its \(floor) bytes in ABI \(IP_ABI_MAJOR).0")
        }
        if declared > Int(IP_MAX_STRUCT_SIZE) {
            throw Failure("\(name).struct_size is \(declared), larger than the maximum \(IP_MAX_STRUCT_SIZE): corrupt table")
        }
        let storage = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment)
        defer { storage.deallocate() }
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<T>.size)
        storage.copyMemory(from: pointer, byteCount: min(declared, MemoryLayout<T>.size))
        return storage.load(as: T.self)
    }

    /// Writes `value` into a struct the other side provided, no further than its `struct_size` (at most ours),
    /// keeping its `struct_size`. A writer that left it 0 gets the whole struct with `value`'s own size.
    public static func write<T>(_ value: T, to target: UnsafeMutablePointer<T>) {
        let raw = UnsafeMutableRawPointer(target)
        let declared = Int(raw.load(as: UInt32.self))
        let count = declared == 0 ? MemoryLayout<T>.size : min(declared, MemoryLayout<T>.size)
        withUnsafeBytes(of: value) { raw.copyMemory(from: $0.baseAddress!, byteCount: count) }
        if declared != 0 { raw.storeBytes(of: UInt32(declared), as: UInt32.self) }
    }
}
