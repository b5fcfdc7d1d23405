import Foundation
import Testing
import TestSupport

/// `imagepipe info` of a large remote source reads only its first 64 KiB where the format allows (a loader with
/// IP_LOADER_RANGES, a JPEG or PNG) and says exactly what `info` of the local file says; where the facts can lie
/// further on (HEIF's item extents, a GIF's frames) it reads the whole object and still says the same.
@Suite("info of remote sources by ranged reads")
struct RangedInfoTests {
    static func info(_ source: String, _ environment: [String: String]? = nil) throws -> String {
        let run = try CommandLine.run(TestPaths.imagepipeBinary, ["info", source, "--json", "--no-cache", "--plugin-dir", TestPaths.pluginsDirectory],
                                      environment: environment)
        guard run.status == 0 else { throw TestSupportError("info \(source): \(run.stderr)") }
        return run.stdout
    }

    /// A 3000×2000 photo as JPEG (with EXIF orientation 6: displayed 2000×3000) and PNG, a HEIF of it, and a
    /// four-frame GIF, all far larger than the prefix.
    static func sources() throws -> String {
        let convert = try Skip.unlessTool("convert")
        let heifEnc = try Skip.unlessTool("heif-enc")
        let folder = try TestPaths.temporaryDirectory("ranged-info")
        for command in [[convert, "-size", "3000x2000", "plasma:fractal", "-quality", "90", folder + "/plain.jpg"],
                        [convert, "-size", "1500x1000", "plasma:fractal", folder + "/big.png"],
                        [heifEnc, "-q", "50", folder + "/big.png", "-o", folder + "/big.heic"],
                        [convert, "-size", "300x300", "plasma:", "plasma:", "plasma:", "plasma:", "-loop", "0", folder + "/anim.gif"]] {
            let run = try CommandLine.run(command[0], Array(command.dropFirst()))
            guard run.status == 0 else { throw TestSupportError("\(command): \(run.stderr)") }
        }
        _ = try TestFiles.write(withOrientation6(try TestFiles.read(folder + "/plain.jpg")), to: folder + "/big.jpg")
        return folder
    }

    /// The JPEG with an EXIF APP1 segment right after SOI holding only Orientation = 6 (big-endian TIFF, one IFD entry).
    static func withOrientation6(_ jpeg: [UInt8]) -> [UInt8] {
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0, 0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8,
                                                    0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let length = payload.count + 2
        return Array(jpeg.prefix(2)) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg.dropFirst(2))
    }

    @Test("HTTP: a JPEG and a PNG cost one 64 KiB range; a HEIF and an animated GIF fall back to the whole file; every answer equals the local file's")
    func http() throws {
        let folder = try Self.sources()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer(root: folder)
        for name in ["big.jpg", "big.png"] {
            #expect(try Self.info(server.url("/" + name)) == (try Self.info(folder + "/" + name)), "\(name)")
            #expect(try server.requestCount("/" + name) == 1)
            #expect(try server.bytesSent("/" + name) == 65_536, "\(name): only the prefix")
        }
        #expect(try Self.info(folder + "/big.jpg").contains("\"width\" : 2000"), "the orientation is read from the prefix too")
        for name in ["big.heic", "anim.gif"] {
            let size = try TestFiles.read(folder + "/" + name).count
            try #require(size > 65_536)
            #expect(try Self.info(server.url("/" + name)) == (try Self.info(folder + "/" + name)), "\(name)")
            #expect(try server.requestCount("/" + name) == 2, "\(name): the prefix, then the whole file")
            #expect(try server.bytesSent("/" + name) == 65_536 + size)
        }
        #expect(try Self.info(folder + "/anim.gif").contains("\"frameCount\" : 4"))
    }

    @Test("an origin that ignores ranges answers 200 with the whole body, which is used as it is: one request")
    func originWithoutRanges() throws {
        let folder = try Self.sources()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try TestHTTPServer(root: folder)
        // /chunked serves the file whole, whatever the request's Range says.
        #expect(try Self.info(server.url("/chunked?name=anim.gif")) == (try Self.info(folder + "/anim.gif")))
        #expect(try server.requestCount("/chunked") == 1)
    }

    @Test("s3://: the store's 206 gives the same facts as the local file")
    func s3() throws {
        let folder = try Self.sources()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try SeaweedFS.shared()
        try store.makeBucket("ranged-info")
        try store.put(try TestFiles.read(folder + "/big.jpg"), bucket: "ranged-info", key: "big.jpg")
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("AWS_") }
        environment["HOME"] = folder
        environment["AWS_ACCESS_KEY_ID"] = SeaweedFS.accessKey
        environment["AWS_SECRET_ACCESS_KEY"] = SeaweedFS.secretKey
        environment["AWS_ENDPOINT_URL"] = store.endpoint
        #expect(try Self.info("s3://ranged-info/big.jpg", environment) == (try Self.info(folder + "/big.jpg")))
    }
}
