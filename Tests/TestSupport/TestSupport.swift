import Foundation
import PipelineHost

/// Where tests find the repository, the built plugins, the CLI and the shared corpus.
public enum TestPaths {
    /// The folder holding Package.swift, found from this file's location.
    public static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// Built plugins (`make` installs them here); IMAGEPIPE_TEST_PLUGINS overrides.
    public static var pluginsDirectory: String {
        ProcessInfo.processInfo.environment["IMAGEPIPE_TEST_PLUGINS"] ?? repositoryRoot + "/plugins.d"
    }

    /// The CLI binary of the release build; IMAGEPIPE_BINARY overrides.
    public static var imagepipeBinary: String {
        if let path = ProcessInfo.processInfo.environment["IMAGEPIPE_BINARY"] { return path }
        return repositoryRoot + "/.build/release/imagepipe"
    }

    /// `../shared/corpus` beside the repository (or IMAGEPIPE_CORPUS); nil when absent, so tests skip with a message.
    public static var corpus: String? {
        let path = ProcessInfo.processInfo.environment["IMAGEPIPE_CORPUS"]
            ?? URL(fileURLWithPath: repositoryRoot).deletingLastPathComponent().appendingPathComponent("shared/corpus").path
        return FileManager.default.fileExists(atPath: path + "/manifest.tsv") ? path : nil
    }

    public static var corpusURL: URL? { corpus.map { URL(fileURLWithPath: $0) } }

    /// A fresh private (0700) folder in this test process's folder under the system temporary directory
    /// (`TestRunFolder`), removed with it when the process exits. Canonical, as that folder is, so it matches what
    /// the kernel reports (/proc/self/maps) and what tools print.
    public static func temporaryDirectory(_ label: String = "imagepipe-test") throws -> String {
        var template = Array("\(TestRunFolder.path)/\(label).XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestSupportError("mkdtemp failed: \(String(cString: strerror(errno)))") }
        return String(cString: made)
    }
}

public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Loads only the named plugins, so a plugin's tests exercise that plugin alone.
public enum PluginSandbox {
    /// Copies `names` (file names in `TestPaths.pluginsDirectory`) into a fresh private folder and returns it.
    public static func directory(with names: [String]) throws -> String {
        let folder = try TestPaths.temporaryDirectory("imagepipe-plugins")
        for name in names {
            let source = TestPaths.pluginsDirectory + "/" + name
            guard FileManager.default.fileExists(atPath: source) else {
                throw TestSupportError("\(source) is missing: run `make` first (it builds and installs the plugins)")
            }
            let target = folder + "/" + name
            try FileManager.default.copyItem(atPath: source, toPath: target)
            chmod(target, 0o755)
        }
        return folder
    }

    /// A host whose search path holds only copies of `names`; fails if any of them did not load.
    public static func host(loading names: [String], loaderConfigurations: [String: String] = [:]) throws -> PluginHost {
        // No registry cache: every sandbox is a fresh folder, and caching it would only litter the user's cache.
        let host = PluginHost(searchPath: PluginSearchPath(directories: [try directory(with: names)]), cachePath: nil,
                              loaderConfigurations: loaderConfigurations)
        for record in host.registry.records where !record.isLoaded {
            throw TestSupportError("\(record.path) did not load: \(record.state)")
        }
        return host
    }
}

/// The result of running a program.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

extension CommandLine {
    /// Runs `executable` with `arguments` and waits; output is captured.
    ///
    /// Through the host's `ChildProcess` (posix_spawn, close-on-exec pipes created under its spawn lock, both pipes
    /// polled on this thread) rather than Foundation's `Process`: tests spawn from many threads at once, and
    /// `Process` adds a run-loop thread, a socket pair per child and a Dispatch thread per call to every one of the
    /// suite's hundreds of `curl` runs (a full run once died in libdispatch's event loop inside this function). A
    /// child still running after `deadline` seconds is killed and reported, so a hung tool fails its test instead
    /// of the whole run.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           currentDirectory: String? = nil, deadline: Double = 900) throws -> ProcessResult {
        let child = try ChildProcess(executable: executable, arguments: arguments, overrides: environment ?? [:],
                                     currentDirectory: currentDirectory)
        let end = ChildProcess.now() + deadline
        guard let output = child.readToEnd(until: end), let termination = child.wait(until: end) else {
            child.kill()
            _ = child.wait(until: ChildProcess.now() + 5)
            throw TestSupportError("\(executable) \(arguments.joined(separator: " ")) was still running after \(Int(deadline)) s: killed")
        }
        let status: Int32
        switch termination {
        case .exited(let code): status = code
        case .signaled(let signal): status = signal  // as Foundation's Process reports an uncaught signal
        }
        return ProcessResult(status: status, stdout: String(decoding: output, as: UTF8.self), stderr: child.errorText)
    }

    /// Runs a shell command line (for reference tools); output is captured. Reference tools named in it are the
    /// verified ones (`ReferenceTool.shellPATH`), never a stand-in that happens to come first on PATH.
    @discardableResult
    public static func shell(_ command: String) throws -> ProcessResult {
        try run("/bin/sh", ["-c", command], environment: ["PATH": ReferenceTool.shellPATH])
    }

    /// True when the program is installed as what it claims to be (see `ReferenceTool`).
    public static func hasTool(_ name: String) -> Bool {
        ReferenceTool.path(name) != nil
    }
}
