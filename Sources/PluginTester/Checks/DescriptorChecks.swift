import PluginAPI
import VersionedStructs

/// The static descriptors the host routes by: every string, ID, list, flag and magic pattern, all problems listed.
enum DescriptorChecks {
    static let all: [CheckDefinition] = [sanity]

    static let sanity = CheckDefinition(id: "descriptors.sanity", title: "descriptors: strings, IDs, capabilities vs slots, magic patterns",
                                        scope: .plugin) { context in
        // Descriptors are static data and get_factory is callable before init: no init, so this check still
        // explains a plugin whose init refuses to start.
        let plugin = try PluginUnderTest.open(context.settings.pluginPath)
        let entry = plugin.entry
        checkID(entry.id, "plugin id", revision: false, context)
        for (pointer, name) in [(entry.name, "plugin name"), (entry.version, "plugin version")] {
            if let problem = CText.problem(pointer, named: name) { context.fail(problem) }
        }
        for (pointer, name) in [(entry.vendor, "plugin vendor"), (entry.description, "plugin description")] {
            if let problem = CText.problem(pointer, named: name) { context.warn(problem) }
        }
        var ids: [String] = []
        for (index, coder) in try plugin.coders().enumerated() {
            ids.append(checkCoder(coder, index: index, context))
        }
        for (index, loader) in try plugin.loaders().enumerated() {
            let label = "loader #\(index)"
            let d = try ABICopy.read(loader.table.descriptor, as: ip_loader_descriptor.self, named: "\(label) descriptor")
            if !loader.isComplete {
                context.fail("\(label) lacks start (or, ABI 1.1, open + start2 + close), cancel or release")
            }
            ids.append(checkID(d.id, "\(label) id", revision: true, context))
            checkStrings(d.name, d.version, label, context)
            let schemes = checkList(d.schemes, "\(label) schemes", context)
            if schemes.isEmpty { context.fail("\(label) lists no URL scheme") }
            for scheme in schemes where scheme != scheme.lowercased() || scheme.contains(":") {
                context.fail("\(label) scheme \"\(scheme)\" must be lower case without ':'")
            }
            checkUnknownBits(d.capabilities, known: UInt64(IP_LOADER_THREAD_SAFE) | UInt64(IP_LOADER_KNOWS_SIZE)
                                 | UInt64(IP_LOADER_WRITES) | UInt64(IP_LOADER_RANGES), label, context)
        }
        for (index, cache) in try plugin.caches().enumerated() {
            let label = "cache #\(index)"
            let d = try ABICopy.read(cache.table.descriptor, as: ip_cache_descriptor.self, named: "\(label) descriptor")
            ids.append(checkID(d.id, "\(label) id", revision: true, context))
            checkStrings(d.name, d.version, label, context)
            if cache.open == nil || cache.table.get == nil || cache.table.put == nil || cache.table.remove == nil || cache.table.close == nil {
                context.fail("\(label) lacks one of open (or, ABI 1.1, open2), get, put, remove, close")
            }
            checkUnknownBits(d.capabilities, known: 0b111, label, context)
        }
        let duplicates = Dictionary(grouping: ids.filter { !$0.isEmpty }, by: { $0 }).filter { $0.value.count > 1 }.keys
        for id in duplicates.sorted() { context.fail("component ID \(id) is used more than once") }
        context.note("\(ids.count) component descriptor(s) checked")
    }

    /// Reverse-DNS: lower-case ASCII labels separated by dots, optionally "/<revision>" (expected on components).
    @discardableResult
    static func checkID(_ pointer: UnsafePointer<CChar>?, _ name: String, revision: Bool, _ context: CheckContext) -> String {
        if let problem = CText.problem(pointer, named: name, maxLength: 256) { context.fail(problem); return "" }
        let id = CText.lenient(pointer)
        let parts = id.split(separator: "/", omittingEmptySubsequences: false)
        let labels = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        let validLabel: (Substring) -> Bool = { label in
            !label.isEmpty && label.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
        }
        if labels.count < 2 || !labels.allSatisfy(validLabel) {
            context.fail("\(name) \"\(id)\" is not a reverse-DNS identifier (lower-case labels separated by dots, e.g. org.example.coder.foo/1)")
        } else if parts.count > 2 || (parts.count == 2 && (parts[1].isEmpty || !parts[1].allSatisfy(\.isNumber))) {
            context.fail("\(name) \"\(id)\" has a malformed revision (expected \"/<number>\")")
        } else if revision && parts.count == 1 {
            context.warn("\(name) \"\(id)\" has no \"/<revision>\" suffix: a breaking change then cannot get a new ID")
        }
        return id
    }

    private static func checkStrings(_ name: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ label: String, _ context: CheckContext) {
        if let problem = CText.problem(name, named: "\(label) name") { context.fail(problem) }
        if let problem = CText.problem(version, named: "\(label) version") { context.fail(problem) }
    }

    private static func checkList(_ list: UnsafePointer<UnsafePointer<CChar>?>?, _ name: String, _ context: CheckContext) -> [String] {
        guard let list else { context.fail("\(name) is NULL (use an empty, NULL-terminated list)"); return [] }
        var items: [String] = []
        var index = 0
        while let item = list[index] {
            guard index < 64 else { context.fail("\(name) has more than 64 entries or lacks its NULL terminator"); break }
            if let problem = CText.problem(item, named: "\(name)[\(index)]", maxLength: 256) { context.fail(problem) }
            items.append(CText.lenient(item))
            index += 1
        }
        return items
    }

    private static func checkUnknownBits(_ capabilities: UInt64, known: UInt64, _ label: String, _ context: CheckContext) {
        if capabilities & ~known != 0 {
            context.warn("\(label) sets capability bits 0x\(String(capabilities & ~known, radix: 16)) that ABI \(IP_ABI_MAJOR).\(IP_ABI_MINOR) does not define")
        }
    }

    private static func checkCoder(_ coder: CoderEntryPoints, index: Int, _ context: CheckContext) -> String {
        let label = "coder #\(index)"
        guard let d = try? ABICopy.read(coder.table.descriptor, as: ip_coder_descriptor.self, named: "\(label) descriptor") else {
            context.fail("\(label): descriptor is NULL or its struct_size is absurd")
            return ""
        }
        let id = checkID(d.id, "\(label) id", revision: true, context)
        let named = id.isEmpty ? label : "coder \(id)"
        checkStrings(d.name, d.version, named, context)
        if let problem = CText.problem(d.format, named: "\(named) format", maxLength: 31) {
            context.fail(problem)
        } else if CText.lenient(d.format) != CText.lenient(d.format).lowercased() {
            context.warn("\(named) format \"\(CText.lenient(d.format))\" should be lower case")
        }
        _ = checkList(d.mime_types, "\(named) mime_types", context)
        for ext in checkList(d.extensions, "\(named) extensions", context) where ext.hasPrefix(".") || ext != ext.lowercased() {
            context.warn("\(named) extension \"\(ext)\" should be lower case without a leading dot")
        }

        // Capabilities against slots: a flag promises slots; a slot without its flag is never used.
        let caps = d.capabilities
        func has(_ flag: UInt64) -> Bool { caps & flag != 0 }
        if !has(IP_CODER_CAN_DECODE) && !has(IP_CODER_CAN_ENCODE) { context.fail("\(named) can neither decode nor encode") }
        let slotRules: [(UInt64, String, Bool, String)] = [
            (IP_CODER_CAN_DECODE, "CAN_DECODE", coder.probe != nil && coder.decode != nil, "probe and decode"),
            (IP_CODER_CAN_ENCODE, "CAN_ENCODE", coder.encode != nil, "encode"),
            (IP_CODER_ANIMATED, "ANIMATED", coder.framesOpen != nil && coder.table.frames_next != nil && coder.table.frames_close != nil,
             "frames_open, frames_next and frames_close"),
            (IP_CODER_INCREMENTAL, "INCREMENTAL",
             coder.incrementalOpen != nil && coder.table.incremental_update != nil && coder.table.incremental_close != nil,
             "incremental_open, incremental_update and incremental_close"),
        ]
        for (flag, flagName, present, slots) in slotRules {
            if has(flag) && !present { context.fail("\(named) claims \(flagName) but lacks \(slots)") }
        }
        if !has(IP_CODER_CAN_ENCODE) && coder.encode != nil { context.warn("\(named) has an encode slot but does not claim CAN_ENCODE") }
        if !has(IP_CODER_ANIMATED) && coder.framesOpen != nil { context.warn("\(named) has frames slots but does not claim ANIMATED") }
        if !has(IP_CODER_INCREMENTAL) && coder.incrementalOpen != nil {
            context.warn("\(named) has incremental slots but does not claim INCREMENTAL")
        }
        if (has(IP_CODER_SCALES) || has(IP_CODER_ANIMATED)) && !has(IP_CODER_CAN_DECODE) {
            context.fail("\(named) claims decoding features (SCALES or ANIMATED) without CAN_DECODE")
        }
        if caps & (1 << 8) != 0 {
            context.warn("\(named) sets the retired bit 8 (TINTS before 1.0's freeze): list IP_DECODE_EXTENSION_TINT in decode_extensions")
        }
        // Bits 0–11 (bit 8 retired); bit 11, IP_CODER_TRANSCODES, is ABI 1.1's.
        checkUnknownBits(caps, known: ((1 << 12) - 1) & ~(1 << 8), named, context)
        if d.decode_extensions != nil {
            var index = 0
            while let item = d.decode_extensions![index], index < 64 {
                let id = String(cString: item)
                if !id.contains(".") || !id.contains("/") { context.fail("\(named): decode extension '\(id)' is not a versioned reverse-DNS ID") }
                if !has(IP_CODER_CAN_DECODE) { context.warn("\(named) lists decode extension \(id) but does not decode") }
                index += 1
            }
            if index >= 64 { context.fail("\(named): decode_extensions has more than 64 entries or lacks its NULL terminator") }
        }

        // Magic patterns.
        guard d.pattern_count <= 64 else { context.fail("\(named) declares \(d.pattern_count) magic patterns (at most 64)"); return id }
        if d.pattern_count > 0 && d.patterns == nil { context.fail("\(named): pattern_count is \(d.pattern_count) but patterns is NULL"); return id }
        if has(IP_CODER_CAN_DECODE) && d.pattern_count == 0 {
            context.warn("\(named) decodes but has no magic pattern: sniffing can never choose it")
        }
        if d.sniff_bytes > 65536 { context.warn("\(named) sniff_bytes \(d.sniff_bytes) is over 64 KiB") }
        for p in 0..<Int(d.pattern_count) {
            let where_ = "\(named) magic pattern \(p)"
            guard let pointer = d.patterns![p] else { context.fail("\(where_) is NULL"); continue }
            let declared = Int(pointer.pointee.struct_size)
            guard declared >= MemoryLayout<ip_magic_pattern>.size, declared <= Int(IP_MAX_STRUCT_SIZE) else {
                context.fail("\(where_): struct_size \(declared) is not between the 1.0 size \(MemoryLayout<ip_magic_pattern>.size) and \(IP_MAX_STRUCT_SIZE)")
                continue
            }
            let pattern = pointer.pointee
            if pattern.length > 1024 { context.fail("\(where_): length \(pattern.length) is over 1024") }
            if pattern.offset > 65536 || pattern.search_range > 65536 {
                context.fail("\(where_): offset \(pattern.offset) or search_range \(pattern.search_range) is over 65536")
            }
            if pattern.length > 0 && pattern.bytes == nil { context.fail("\(where_): length \(pattern.length) but bytes is NULL") }
            if !(1...100).contains(pattern.relevance) { context.fail("\(where_): relevance \(pattern.relevance) is outside 1...100") }
            if pattern.flags & ~UInt32(IP_MAGIC_CONFIRM_WITH_SNIFF) != 0 { context.warn("\(where_): unknown flag bits 0x\(String(pattern.flags, radix: 16))") }
            let confirms = pattern.flags & UInt32(IP_MAGIC_CONFIRM_WITH_SNIFF) != 0
            if confirms && coder.sniff == nil { context.fail("\(where_) asks to confirm with sniff, but the sniff slot is empty") }
            if pattern.length == 0 && !confirms { context.fail("\(where_) is empty and unconfirmed: it would claim every input") }
            if pattern.length == 0 && confirms {
                context.warn("\(where_) is empty (confirm-with-sniff only): the host must open the plugin to route any input")
            }
            if let bytes = pattern.bytes, let mask = pattern.mask, pattern.length <= 1024 {
                let masked = (0..<Int(pattern.length)).filter { bytes[$0] & ~mask[$0] != 0 }
                if !masked.isEmpty { context.warn("\(where_): bytes at \(masked.prefix(4)) have bits the mask ignores") }
                if (0..<Int(pattern.length)).allSatisfy({ mask[$0] == 0 }) { context.fail("\(where_): the mask ignores every bit") }
            }
        }
        return id
    }
}
