/// The registry cache's field-by-field form of what an inspection found (CacheRecord.swift says why not Codable).
/// Adding a stored property to one of these types fails to compile here until it is read, and the round-trip test
/// (RegistryCacheTests) fails until it is written.
extension FileInspection: RecordCoding {
    init(record: inout RecordReader) throws {
        self.init()
        pluginID = try record.optional { try $0.string() }
        name = try record.optional { try $0.string() }
        version = try record.optional { try $0.string() }
        abiVersion = try record.optional { try $0.string() }
        negotiatedMinor = try record.optional { try $0.signed() }
        refusal = try record.optional { try $0.string() }
        coders = try record.array { try $0.record() }
        loaders = try record.array { try $0.record() }
        caches = try record.array { try $0.record() }
    }

    func write(to record: inout RecordWriter) {
        record.optional(pluginID) { $0.string($1) }
        record.optional(name) { $0.string($1) }
        record.optional(version) { $0.string($1) }
        record.optional(abiVersion) { $0.string($1) }
        record.optional(negotiatedMinor) { $0.signed($1) }
        record.optional(refusal) { $0.string($1) }
        record.array(coders) { $0.record($1) }
        record.array(loaders) { $0.record($1) }
        record.array(caches) { $0.record($1) }
    }
}

extension FileKey: RecordCoding {
    init(record: inout RecordReader) throws {
        guard let size = Int64(exactly: try record.signed()) else { throw RecordReader.Malformed() }
        self.size = size
        modifiedSeconds = try record.signed()
        modifiedNanoseconds = try record.signed()
        inode = try record.unsigned()
        device = try record.unsigned()
    }

    func write(to record: inout RecordWriter) {
        record.signed(Int(size))
        record.signed(modifiedSeconds)
        record.signed(modifiedNanoseconds)
        record.unsigned(inode)
        record.unsigned(device)
    }
}

extension CoderDescriptor: RecordCoding {
    init(record: inout RecordReader) throws {
        id = try record.string()
        name = try record.string()
        version = try record.string()
        format = try record.string()
        mimeTypes = try record.array { try $0.string() }
        extensions = try record.array { try $0.string() }
        capabilities = CoderCapabilities(rawValue: try record.unsigned())
        priority = try record.signed()
        patterns = try record.array { try $0.record() }
        sniffBytes = try record.signed()
        decodeExtensions = try record.array { try $0.string() }
        transcodes = try record.array { FormatPair(source: try $0.string(), target: try $0.string()) }
        pluginID = try record.string()
    }

    func write(to record: inout RecordWriter) {
        record.string(id)
        record.string(name)
        record.string(version)
        record.string(format)
        record.array(mimeTypes) { $0.string($1) }
        record.array(extensions) { $0.string($1) }
        record.unsigned(capabilities.rawValue)
        record.signed(priority)
        record.array(patterns) { $0.record($1) }
        record.signed(sniffBytes)
        record.array(decodeExtensions) { $0.string($1) }
        record.array(transcodes) { $0.string($1.source); $0.string($1.target) }
        record.string(pluginID)
    }
}

extension MagicPatternDescriptor: RecordCoding {
    init(record: inout RecordReader) throws {
        offset = try record.signed()
        bytes = try record.bytes()
        mask = try record.optional { try $0.bytes() }
        relevance = try record.signed()
        confirmWithSniff = try record.bool()
        searchRange = try record.signed()
        // matches() indexes the mask by the pattern's bytes.
        if let mask, mask.count != bytes.count { throw RecordReader.Malformed() }
    }

    func write(to record: inout RecordWriter) {
        record.signed(offset)
        record.bytes(bytes)
        record.optional(mask) { $0.bytes($1) }
        record.signed(relevance)
        record.bool(confirmWithSniff)
        record.signed(searchRange)
    }
}

extension LoaderDescriptor: RecordCoding {
    init(record: inout RecordReader) throws {
        id = try record.string()
        name = try record.string()
        version = try record.string()
        schemes = try record.array { try $0.string() }
        capabilities = try record.unsigned()
        priority = try record.signed()
        pluginID = try record.string()
    }

    func write(to record: inout RecordWriter) {
        record.string(id)
        record.string(name)
        record.string(version)
        record.array(schemes) { $0.string($1) }
        record.unsigned(capabilities)
        record.signed(priority)
        record.string(pluginID)
    }
}

extension CacheDescriptor: RecordCoding {
    init(record: inout RecordReader) throws {
        id = try record.string()
        name = try record.string()
        version = try record.string()
        capabilities = try record.unsigned()
        priority = try record.signed()
        pluginID = try record.string()
    }

    func write(to record: inout RecordWriter) {
        record.string(id)
        record.string(name)
        record.string(version)
        record.unsigned(capabilities)
        record.signed(priority)
        record.string(pluginID)
    }
}
