import Foundation
import PipelineHost
import Testing
import TestSupport

/// The S3 loader's writes (ABI 1.1 put and describe) against SeaweedFS: one PUT with its media type and metadata,
/// a multipart upload above the threshold (whole and byte-exact, or nothing), HEAD as describe, and the store's
/// refusals in the pipeline's terms. Only libS3Loader.so is loaded.
@Suite("S3 loader writes against SeaweedFS")
struct S3WriteTests {
    static func writer(_ store: SeaweedFS, extra: String = "") throws -> PluginLoader {
        let loaders = try S3LoaderTests.loaders(store.loaderConfiguration + extra)
        return try loaders.writer(for: "s3://s3tests/x")
    }

    @Test("a put stores the bytes with their Content-Type and metadata; describe gives size, time and metadata back; absent is nil")
    func putAndDescribe() async throws {
        let store = try S3LoaderTests.bucket("writes", [:])
        let writer = try Self.writer(store)
        #expect(writer.descriptor.capabilityNames.contains("writes"))
        let bytes = S3LoaderTests.bytes(70_000, seed: 3)
        let before = Int64(Date().timeIntervalSince1970) - 2
        try writer.put(bytes, to: "s3://s3tests/writes/a b/ü.webp", contentType: "image/webp",
                       metadata: [("imagepipe-thumbnail", "v1;size=64x64;source=/x%25y")])
        #expect(try await writer.load(url: "s3://s3tests/writes/a b/ü.webp", options: LoadOptions()) == bytes)
        let described = try #require(try writer.describe("s3://s3tests/writes/a b/ü.webp"))
        #expect(described.size == 70_000)
        #expect((described.modified ?? 0) >= before)
        #expect(described.metadata["imagepipe-thumbnail"] == "v1;size=64x64;source=/x%25y")
        #expect(try writer.describe("s3://s3tests/writes/absent.webp") == nil)
        let typed = try CommandLine.run("/usr/bin/curl", ["-s", "-I", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user",
                                                          "\(SeaweedFS.accessKey):\(SeaweedFS.secretKey)",
                                                          store.endpoint + "/s3tests/" + SeaweedFS.encoded("writes/a b/ü.webp")]).stdout
        #expect(typed.lowercased().contains("content-type: image/webp"), "\(typed)")
    }

    @Test("above the threshold the object goes up in parts (S3's multipart ETag names the count) and reads back byte for byte")
    func multipart() async throws {
        let store = try S3LoaderTests.bucket("multipart", [:])
        let writer = try Self.writer(store, extra: "\nmultipart-threshold=5242880\npart-size=5242880")
        let bytes = S3LoaderTests.bytes(12 << 20, seed: 11)
        try writer.put(bytes, to: "s3://s3tests/multipart/big.png", contentType: "image/png", metadata: [("imagepipe-thumbnail", "v1")])
        #expect(try await writer.load(url: "s3://s3tests/multipart/big.png", options: LoadOptions()) == bytes)
        let headers = try CommandLine.run("/usr/bin/curl", ["-s", "-I", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user",
                                                            "\(SeaweedFS.accessKey):\(SeaweedFS.secretKey)",
                                                            store.endpoint + "/s3tests/multipart/big.png"]).stdout
        #expect(headers.contains("-3\""), "three parts: \(headers)")
        #expect(try writer.describe("s3://s3tests/multipart/big.png")?.metadata["imagepipe-thumbnail"] == "v1")
        // Below the threshold: one PUT (a plain MD5 ETag, no part count).
        try writer.put(Array(bytes.prefix(1 << 20)), to: "s3://s3tests/multipart/small.png", contentType: "image/png", metadata: [])
        let small = try CommandLine.run("/usr/bin/curl", ["-s", "-I", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user",
                                                          "\(SeaweedFS.accessKey):\(SeaweedFS.secretKey)",
                                                          store.endpoint + "/s3tests/multipart/small.png"]).stdout
        #expect(!small.contains("-1\"") && small.lowercased().contains("etag"), "\(small)")
    }

    @Test("writes fail in the pipeline's terms: bad credentials refused without the secret, bad metadata refused before any request")
    func failures() throws {
        let store = try S3LoaderTests.bucket("writefail", [:])
        let writer = try Self.writer(store)
        func failure(_ body: () throws -> Void) -> PipelineError? {
            do { try body(); return nil } catch { return error as? PipelineError }
        }
        // (A missing bucket is not tried here: SeaweedFS makes a bucket on the first PUT into it, where AWS answers
        // NoSuchBucket, which S3ErrorAnswer maps to not found for writes as for reads.)
        let bad = try S3LoaderTests.loaders(store.loaderConfiguration.replacingOccurrences(of: SeaweedFS.secretKey, with: "wrong-secret-999"))
        let refused = failure { try bad.writer(for: "s3://s3tests/x").put([1], to: "s3://s3tests/writefail/a.png", contentType: nil, metadata: []) }
        #expect(refused?.status == .refused && !"\(refused!)".contains("wrong-secret-999"), "\(String(describing: refused))")
        let badName = failure { try writer.put([1], to: "s3://s3tests/writefail/b.png", contentType: nil, metadata: [("Bad Name", "x")]) }
        #expect(badName?.status == .invalidData, "\(String(describing: badName))")
        #expect(try writer.describe("s3://s3tests/writefail/b.png") == nil, "nothing was written")
    }
}
