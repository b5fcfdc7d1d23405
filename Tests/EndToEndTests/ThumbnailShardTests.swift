import Foundation
import Testing
import TestSupport

/// A batch on many machines: `--shard K/N` splits the sources by a stable hash of their names, so N shards make
/// exactly the outputs of one run; `--manifest FILE` reads the list from a file (plain or JSON lines).
@Suite("thumbnail --shard and --manifest")
struct ThumbnailShardTests {
    /// A folder of 18 small PNGs of different sizes, 4 of them in a subfolder.
    static func photos() throws -> String {
        let convert = try Skip.unlessTool("convert")
        let folder = try TestPaths.temporaryDirectory("shards")
        try FileManager.default.createDirectory(atPath: folder + "/in/sub", withIntermediateDirectories: true)
        for i in 1...18 {
            let path = folder + (i > 14 ? "/in/sub/s\(i).png" : "/in/p\(i).png")
            let run = try CommandLine.run(convert, ["-size", "\(16 + i)x\(9 + i)", "gradient:red-blue", path])
            guard run.status == 0 else { throw TestSupportError("convert: \(run.stderr)") }
        }
        return folder
    }

    static func thumbnail(_ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
        try CommandLine.run(TestPaths.imagepipeBinary, ["thumbnail"] + arguments + ["--plugin-dir", TestPaths.pluginsDirectory],
                            environment: environment)
    }

    /// Every file below `folder`, by relative path, with its bytes.
    static func outputs(_ folder: String) throws -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        for case let name as String in FileManager.default.enumerator(atPath: folder) ?? NSEnumerator() {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder), !isFolder.boolValue {
                found[name] = try TestFiles.read(folder + "/" + name)
            }
        }
        return found
    }

    @Test("three shards together make exactly one run's outputs, each source in one shard; index/N reads JOB_COMPLETION_INDEX")
    func shardsMakeOneRun() throws {
        let folder = try Self.photos()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let common = [folder + "/in", "-r", "--size", "12", "-o", "%s.png"]
        #expect(try Self.thumbnail(common + ["--out-dir", folder + "/one"]).status == 0)
        var perShard: [[String: [UInt8]]] = []
        for k in 0..<3 {
            let run = try Self.thumbnail(common + ["--out-dir", folder + "/shard\(k)", "--shard", "\(k)/3"])
            #expect(run.status == 0, "\(run.stderr)")
            perShard.append(try Self.outputs(folder + "/shard\(k)"))
        }
        let one = try Self.outputs(folder + "/one")
        #expect(one.count == 18)
        #expect(perShard.allSatisfy { !$0.isEmpty && $0.count < 18 }, "\(perShard.map(\.count))")
        let merged = perShard.reduce(into: [String: [UInt8]]()) { all, shard in all.merge(shard) { first, _ in first } }
        #expect(perShard.map(\.count).reduce(0, +) == 18, "a source was in two shards")
        #expect(merged == one, "the shards' outputs differ from one run's")
        // A rerun of a shard picks the same files (and finds them up to date).
        let again = try Self.thumbnail(common + ["--out-dir", folder + "/shard1", "--shard", "1/3", "--json"])
        let lines = again.stdout.split(separator: "\n").filter { $0.contains("\"type\":\"output\"") }
        #expect(lines.count == perShard[1].count && lines.allSatisfy { $0.contains("\"status\":\"up-to-date\"") }, "\(again.stdout)")
        // Kubernetes' Indexed Job index.
        var environment = ProcessInfo.processInfo.environment
        environment["JOB_COMPLETION_INDEX"] = "2"
        #expect(try Self.thumbnail(common + ["--out-dir", folder + "/indexed", "--shard", "index/3"], environment: environment).status == 0)
        #expect(try Self.outputs(folder + "/indexed") == perShard[2])
        for bad in ["3/3", "1", "a/3", "0/0"] {
            let refused = try Self.thumbnail([folder + "/in", "--shard", bad])
            #expect(refused.status == 2 && refused.stderr.contains("--shard"), "\(bad): \(refused.stderr)")
        }
    }

    @Test("--manifest reads paths and JSON lines ({\"url\"}, {\"source\"}); a line naming nothing fails alone")
    func manifest() throws {
        let folder = try Self.photos()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let list = "\(folder)/in/p1.png\n{\"url\": \"\(folder)/in/p2.png\"}\n\n{\"source\": \"\(folder)/in/sub/s15.png\"}\n{\"nothing\": 1}\n"
        try list.write(toFile: folder + "/list.txt", atomically: true, encoding: .utf8)
        let run = try Self.thumbnail(["--manifest", folder + "/list.txt", "--size", "12", "--out-dir", folder + "/out", "-o", "%s.png"])
        #expect(run.status == 1, "the line naming nothing should fail the batch: \(run.stderr)")
        #expect(Set(try Self.outputs(folder + "/out").keys) == ["p1.png", "p2.png", "s15.png"])
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        let missing = try Self.thumbnail(["--manifest", folder + "/nope.txt"])
        #expect(missing.status != 0 && missing.stderr.contains("--manifest"), "\(missing.stderr)")
    }
}
