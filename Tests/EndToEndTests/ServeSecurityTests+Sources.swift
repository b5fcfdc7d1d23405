import Foundation
import PipelineHost
import Testing
import TestSupport

/// ServeSecurityTests, the sources' part: where a source may come from (redirects, a racing link under --root, dot
/// segments and escapes under a path prefix) and when a changed source is read again.
extension ServeSecurityTests {
    // MARK: 2. Redirects

    @Test("a redirect is followed only to an allowed source: not to another origin, not to a closed port (alike answers), yes inside the prefix")
    func redirectsStayInsideTheAllowedSources() throws {
        let origin = try TestHTTPServer(root: root + "/photos")
        defer { origin.stop() }
        let secrets = try TestPaths.temporaryDirectory("secrets")
        try Data(big).write(to: URL(fileURLWithPath: secrets + "/secret.png"))
        let other = try TestHTTPServer(root: secrets)
        defer { other.stop() }
        let closed = try ClosedPort()
        defer { closed.release() }
        let serve = try ServeProcess(["--allow-source", origin.url("/"), "--allow-private-addresses"])
        func fetch(_ target: String) throws -> HTTPReply {
            let query = "url=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target)
            return try serve.get(serve.signed("/s:64:64/" + ServeProcess.plain(origin.url("/redirect-to?" + query)) + "@png"))
        }
        let toOpen = try fetch(other.url("/secret.png"))
        let toClosed = try fetch("http://127.0.0.1:\(closed.port)/secret.png")
        #expect(toOpen.status == 403, "\(toOpen.status) \(text(toOpen))")
        #expect(try other.requestCount("/secret.png") == 0, "the disallowed origin was reached")
        #expect(try other.connectionCount() == 0, "a connection was opened to the disallowed origin")
        #expect(toClosed.status == toOpen.status)
        // The answers differ only in the source URL they echo: nothing tells an open port from a closed one.
        let shape = { (reply: HTTPReply) in self.text(reply).replacing(/redirect-to\?url=[^ ]*/, with: "…") }
        #expect(shape(toOpen) == shape(toClosed), "\(shape(toOpen)) vs \(shape(toClosed))")
        // Not to a local file either, and not past the hop limit.
        #expect(try fetch("file:///etc/passwd").status == 403)
        // Inside the allowed prefix: followed, hop by hop.
        let inside = try serve.get(serve.signed("/s:64:64/" + ServeProcess.plain(origin.url("/redirect?n=2")) + "@png"))
        #expect(inside.status == 200, "\(inside.status) \(text(inside))")
        #expect(try origin.requestCount("/redirect") == 2)
        #expect(serve.terminate() == 0)
    }

    // MARK: 3. A symbolic link swapped in and out during requests

    @Test("a racer exchanging a folder inside --root with a link to a folder outside never gets the outside file served")
    func symlinkRaceStaysInside() throws {
        let serve = try ServeProcess(["--root", root])
        // root/photos/d is a real folder holding x.png (400x300) at one moment and, atomically exchanged
        // (renameat2 RENAME_EXCHANGE), a link to a folder outside holding its own x.png (40x30) the next: a check that
        // resolves the path and an open by name that follows it again can fall on either side of an exchange.
        let photos = root + "/photos", outsideFolder = folder + "/outside-folder"
        try FileManager.default.createDirectory(atPath: photos + "/d", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outsideFolder, withIntermediateDirectories: true)
        try Data(big).write(to: URL(fileURLWithPath: photos + "/d/x.png"))
        try Data(small).write(to: URL(fileURLWithPath: outsideFolder + "/x.png"))
        try FileManager.default.createSymbolicLink(atPath: photos + "/l", withDestinationPath: outsideFolder)
        // The racer ends itself when the stop file appears (or after 60 s): a signal is no way to stop it, since a
        // child of the test process inherits the signals that process ignores.
        let stop = folder + "/racer-stop"
        let racer = Process()
        racer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        racer.arguments = ["python3", "-c", """
            import ctypes, os, sys, time
            libc = ctypes.CDLL(None, use_errno=True)
            os.chdir(sys.argv[1])
            end = time.monotonic() + 60
            while not os.path.exists(sys.argv[2]) and time.monotonic() < end:
                if libc.renameat2(-100, b"d", -100, b"l", 2) != 0:  # AT_FDCWD, RENAME_EXCHANGE
                    sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
            """, photos, stop]
        try racer.run()
        defer {
            FileManager.default.createFile(atPath: stop, contents: nil)
            racer.waitUntilExit()
        }
        var outside = 0, inside = 0, refused = 0, other: [Int] = []
        for attempt in 0..<120 {
            // A size of its own per request, so no answer is a cached one.
            let reply = try serve.get(serve.signed(local("/photos/d/x.png", "s:\(300 + attempt):\(300 + attempt)")))
            switch (reply.status, pngSize(reply.body).map { $0.0 }) {
            case (200, 40): outside += 1
            case (200, _): inside += 1
            case (403, _), (404, _): refused += 1
            default: other.append(reply.status)
            }
        }
        #expect(racer.isRunning, "the racer stopped early (status \(racer.isRunning ? 0 : racer.terminationStatus))")
        #expect(outside == 0, "the outside file was served \(outside) times of 120")
        #expect(inside > 0 && refused > 0, "the racer raced: \(inside) inside, \(refused) refused, others \(other)")
        #expect(serve.terminate() == 0)
    }

    // MARK: 4. Dot segments and escapes under a path-scoped prefix

    @Test("../, %2e%2e, double escapes and user information do not leave a path-scoped --allow-source")
    func dotSegmentsStayInThePrefix() throws {
        let files = try TestPaths.temporaryDirectory("origin-files")
        try Data(big).write(to: URL(fileURLWithPath: files + "/a.png"))
        try Data(small).write(to: URL(fileURLWithPath: files + "/private.png"))
        let origin = try TestHTTPServer(root: files)
        defer { origin.stop() }
        let serve = try ServeProcess(["--allow-source", origin.url("/pub/"), "--allow-private-addresses"])
        func status(_ source: String) throws -> Int { try serve.get(serve.signed("/s:64:64/" + ServeProcess.plain(source) + "@png")).status }
        let base = "http://127.0.0.1:\(origin.port)"
        #expect(try status(base + "/pub/a.png") == 200)
        #expect(try status("HTTP://127.0.0.1:\(origin.port)/pub/./a.png") == 200, "scheme case and ./ are normalised, not refused")
        for escape in ["/pub/../private.png", "/pub/%2e%2e/private.png", "/pub/%2E%2e/private.png", "/pub/%252e%252e/private.png",
                       "/pub%2F..%2Fprivate.png", "/pub/a/../../private.png", "/pub/..%5cprivate.png", "/pub\\..\\private.png"] {
            #expect(try status(base + escape) == 403, "\(escape)")
        }
        #expect(try status("http://127.0.0.1:\(origin.port)@example.invalid/pub/a.png") == 403, "user information")
        #expect(try origin.requestCount("/private.png") == 0)
        #expect(serve.terminate() == 0)
        // A prefix without a trailing slash covers its own segment only.
        let segment = try ServeProcess(["--allow-source", base + "/pub", "--allow-private-addresses"])
        func segmentStatus(_ source: String) throws -> Int {
            try segment.get(segment.signed("/s:64:64/" + ServeProcess.plain(source) + "@png")).status
        }
        #expect(try segmentStatus(base + "/pub/a.png") == 200)
        #expect(try segmentStatus(base + "/public/a.png") == 403)
        #expect(try segmentStatus(base + "/puba.png") == 403)
        #expect(segment.terminate() == 0)
    }

    // MARK: 7 and 9. Sources that change

    @Test("a local source replaced on disk is served anew at once (new ETag, new sizes too); a fixed file is not remembered as failed")
    func changedLocalSourcesAreNotStale() throws {
        let serve = try ServeProcess(["--root", root])
        let file = root + "/photos/changing.png"
        try Data(big).write(to: URL(fileURLWithPath: file))
        let before = try serve.get(serve.signed(local("/photos/changing.png")))
        #expect(pngSize(before.body)?.0 == 400)
        try Data(small).write(to: URL(fileURLWithPath: file + ".new"))
        #expect(rename(file + ".new", file) == 0)
        let after = try serve.get(serve.signed(local("/photos/changing.png")))
        #expect(pngSize(after.body)?.0 == 40, "served from a stale tier")
        #expect(after.headers["etag"] != before.headers["etag"])
        #expect(pngSize(try serve.get(serve.signed(local("/photos/changing.png", "s:20:20"))).body)?.0 == 20)
        // A file that failed to decode, then fixed in place.
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: root + "/photos/fixed.png"))
        #expect(try serve.get(serve.signed(local("/photos/fixed.png"))).status == 422)
        try Data(big).write(to: URL(fileURLWithPath: root + "/photos/fixed.png"))
        #expect(try serve.get(serve.signed(local("/photos/fixed.png"))).status == 200)
        #expect(serve.terminate() == 0)
    }

    @Test("a local source looked up before stays confined: a cached URL whose folder became a link outside is 403; a touch, a retargeted link are new versions")
    func rememberedLocalSourcesStayConfined() throws {
        let serve = try ServeProcess(["--root", root])
        let inside = root + "/photos/kept", outside = folder + "/kept-outside"
        try FileManager.default.createDirectory(atPath: inside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data(big).write(to: URL(fileURLWithPath: inside + "/x.png"))
        try Data(small).write(to: URL(fileURLWithPath: outside + "/x.png"))
        let url = serve.signed(local("/photos/kept/x.png"))
        let first = try serve.get(url)
        #expect(first.status == 200 && pngSize(first.body)?.0 == 400)
        // The service remembers what it found under this path; the path now leads outside, to another file.
        #expect(rename(inside, inside + ".away") == 0)
        try FileManager.default.createSymbolicLink(atPath: inside, withDestinationPath: outside)
        let swapped = try serve.get(url)
        #expect(swapped.status == 403, "\(swapped.status) \(text(swapped))")
        // Back in place, the same file: the same version, answered from the cache.
        func renders() throws -> String? {
            text(try serve.get("/metrics")).split(separator: "\n").first { $0.hasPrefix("imagepipe_renders_total ") }.map(String.init)
        }
        try FileManager.default.removeItem(atPath: inside)
        #expect(rename(inside + ".away", inside) == 0)
        #expect(try serve.get(url).status == 200)
        #expect(try renders() == "imagepipe_renders_total 1")
        // Touched: the same bytes with a new modification time are a new version, rendered again.
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, inside + "/x.png", &times, 0) == 0)
        #expect(try serve.get(url).status == 200)
        #expect(try renders() == "imagepipe_renders_total 2")
        // A link that stays inside is followed, and its target is what is remembered: retargeted, it is another file.
        try Data(small).write(to: URL(fileURLWithPath: inside + "/y.png"))
        try FileManager.default.createSymbolicLink(atPath: inside + "/alias.png", withDestinationPath: "x.png")
        let alias = serve.signed(local("/photos/kept/alias.png"))
        #expect(try pngSize(serve.get(alias).body)?.0 == 400)
        #expect(try pngSize(serve.get(alias).body)?.0 == 400)
        try FileManager.default.removeItem(atPath: inside + "/alias.png")
        try FileManager.default.createSymbolicLink(atPath: inside + "/alias.png", withDestinationPath: "y.png")
        #expect(try pngSize(serve.get(alias).body)?.0 == 40)
        #expect(serve.terminate() == 0)
    }

    @Test("an http(s) source is revalidated after --source-ttl: a 304 keeps its renders, a change is served anew; a missing one is retried after --failed-ttl")
    func changedRemoteSourcesAreRefetched() throws {
        let files = try TestPaths.temporaryDirectory("origin-changing")
        try Data(big).write(to: URL(fileURLWithPath: files + "/b.png"))
        let origin = try TestHTTPServer(root: files)
        defer { origin.stop() }
        let serve = try ServeProcess(["--allow-source", origin.url("/"), "--allow-private-addresses", "--source-ttl", "1", "--failed-ttl", "1"])
        let path = serve.signed("/s:500:500/" + ServeProcess.plain(origin.url("/b.png")) + "@png")
        func metric(_ name: String) throws -> Int {
            let text = String(decoding: try serve.get("/metrics").body, as: UTF8.self)
            return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
        }
        #expect(pngSize(try serve.get(path).body)?.0 == 400)
        #expect(try serve.get(path).status == 200)
        #expect(try origin.requestCount("/b.png") == 1, "a fresh source was fetched again")
        let renders = try metric("imagepipe_renders_total")
        // Past the lifetime (1 s; the TTL is the behaviour under test, so waiting for it is the test), unchanged:
        // one conditional request, answered 304, and the render is reused.
        usleep(1_200_000)
        #expect(pngSize(try serve.get(path).body)?.0 == 400)
        #expect(try origin.requestCount("/b.png") == 2)
        #expect(try metric("imagepipe_source_fetches_total{result=\"not_modified\"}") == 1)
        #expect(try metric("imagepipe_renders_total") == renders, "an unchanged source was rendered again")

        try Data(small).write(to: URL(fileURLWithPath: files + "/b.png"))
        let missing = serve.signed("/s:64:64/" + ServeProcess.plain(origin.url("/c.png")) + "@png")
        #expect(try serve.get(missing).status == 404)
        #expect(try serve.get(missing).status == 404)
        #expect(try origin.requestCount("/c.png") == 1, "a failure within --failed-ttl asked the origin again")
        try Data(big).write(to: URL(fileURLWithPath: files + "/c.png"))
        usleep(1_200_000)
        #expect(pngSize(try serve.get(path).body)?.0 == 40, "the changed origin file was served stale")
        #expect(try serve.get(missing).status == 200, "the 404 was remembered past --failed-ttl")

        // The origin may shorten the lifetime: max-age=0 revalidates every request (each a 304 here).
        let uncached = serve.signed("/s:64:64/" + ServeProcess.plain(origin.url("/b.png?max_age=0")) + "@png")
        for _ in 0..<3 { #expect(try serve.get(uncached).status == 200) }
        #expect(try metric("imagepipe_source_fetches_total{result=\"not_modified\"}") == 3)
        #expect(serve.terminate() == 0)
    }
}
