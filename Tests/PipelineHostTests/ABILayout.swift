import Foundation
import TestSupport

/// The layout of one copy of the ABI headers as the C compiler sees it: every struct's size, every field's offset,
/// every `#define IP_...` constant. The structs and fields are found by reading the headers; the numbers come from
/// compiling and running a program that prints `sizeof` and `offsetof` for each.
struct ABILayout {
    var sizes: [String: Int] = [:]
    /// "struct.field" → offset.
    var fields: [String: Int] = [:]
    /// Name → the text of its value.
    var constants: [String: String] = [:]

    static func read(headers: String) throws -> ABILayout {
        var layout = ABILayout()
        var structs: [(name: String, fields: [String])] = []
        let folder = headers + "/imagepipe"
        for file in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() where file.hasSuffix(".h") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            let code = text.replacing(/\/\*[\s\S]*?\*\//, with: "")
            for match in code.matches(of: /struct\s+(ip_\w+)\s*\{([\s\S]*?)\n\}/) {
                structs.append((String(match.output.1), fieldNames(String(match.output.2))))
            }
            for match in code.matches(of: /#define\s+(IP_\w+)[ \t]+([^\n]+)/) {
                layout.constants[String(match.output.1)] = String(match.output.2).trimmingCharacters(in: .whitespaces)
            }
        }
        var program = "#include <stddef.h>\n#include <stdio.h>\n#include \"imagepipe/imagepipe.h\"\nint main(void) {\n"
        for item in structs {
            program += "    printf(\"size \(item.name) %zu\\n\", sizeof(\(item.name)));\n"
            for field in item.fields {
                program += "    printf(\"field \(item.name).\(field) %zu\\n\", offsetof(\(item.name), \(field)));\n"
            }
        }
        program += "    return 0;\n}\n"
        let work = try TestPaths.temporaryDirectory("abi-layout")
        defer { try? FileManager.default.removeItem(atPath: work) }
        try Data(program.utf8).write(to: URL(fileURLWithPath: work + "/layout.c"))
        let build = try CommandLine.run("/usr/bin/cc", ["-std=c11", "-I", headers, work + "/layout.c", "-o", work + "/layout"])
        guard build.status == 0 else { throw TestSupportError("layout program: \(build.stderr)") }
        let run = try CommandLine.run(work + "/layout", [])
        for line in run.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 3, let value = Int(parts[2]) else { continue }
            if parts[0] == "size" { layout.sizes[String(parts[1])] = value } else { layout.fields[String(parts[1])] = value }
        }
        return layout
    }

    /// The member names of a struct body: `type name;`, `type name[N];`, `ret (*name)(...);`, `struct x name;`.
    private static func fieldNames(_ body: String) -> [String] {
        body.split(separator: ";").compactMap { declaration -> String? in
            let text = declaration.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, !text.hasPrefix("#") else { return nil }
            if let pointer = text.firstMatch(of: /\(\*\s*(\w+)\)/) { return String(pointer.output.1) }
            return text.firstMatch(of: /(\w+)\s*(\[[^\]]*\])?\s*$/).map { String($0.output.1) }
        }
    }
}
