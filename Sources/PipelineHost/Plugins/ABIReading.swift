import PluginAPI
import VersionedStructs

/// Reading C tables from a plugin defensively: versioned sizes, strings, lists.
///
/// Versioned structs follow the one rule of `VersionedStruct` (shared with PluginKit and the plugin tester): at
/// least the struct's 1.0 size, at most IP_MAX_STRUCT_SIZE, `min(struct_size, ours)` bytes copied, the rest zero.
enum ABIReading {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A copy of a plugin's struct under the one rule every reader follows (`VersionedStruct`).
    static func read<T>(_ pointer: UnsafeRawPointer?, as type: T.Type, named name: String) throws -> T {
        do {
            return try VersionedStruct.read(pointer, as: type, named: name)
        } catch {
            throw Failure(error.description)
        }
    }

    /// A required, non-empty, valid UTF-8 string.
    static func string(_ pointer: UnsafePointer<CChar>?, named name: String, maxLength: Int = 1024) throws -> String {
        guard let pointer else { throw Failure("\(name) is NULL") }
        guard strnlen(pointer, maxLength + 1) <= maxLength else { throw Failure("\(name) is longer than \(maxLength) bytes") }
        guard let text = String(validatingCString: pointer) else { throw Failure("\(name) is not valid UTF-8") }
        guard !text.isEmpty else { throw Failure("\(name) is empty") }
        return text
    }

    static func optionalString(_ pointer: UnsafePointer<CChar>?, named name: String) throws -> String {
        pointer == nil ? "" : ((try? string(pointer, named: name)) ?? "")
    }

    /// A NULL-terminated string list (at most 64 entries).
    static func stringList(_ list: UnsafePointer<UnsafePointer<CChar>?>?, named name: String) throws -> [String] {
        guard let list else { throw Failure("\(name) is NULL (use an empty list)") }
        var items: [String] = []
        var index = 0
        while let item = list[index] {
            guard index < 64 else { throw Failure("\(name) has more than 64 entries or lacks its NULL terminator") }
            items.append(try string(item, named: "\(name)[\(index)]", maxLength: 256))
            index += 1
        }
        return items
    }

    /// A reverse-DNS identifier such as "org.imagepipe.coder.png/1".
    static func identifier(_ pointer: UnsafePointer<CChar>?, named name: String) throws -> String {
        let id = try string(pointer, named: name, maxLength: 256)
        let allowed = id.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-/".unicodeScalars.contains($0)) }
        guard allowed, id.contains(".") else { throw Failure("\(name) '\(id)' is not a reverse-DNS identifier") }
        return id
    }
}

#if canImport(Glibc)
import Glibc
#endif
