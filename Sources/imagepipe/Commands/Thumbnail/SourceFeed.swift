import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One source of a batch, as found: a file (named, or found in a folder), a URL, or a line of standard input.
struct BatchSource: Sendable {
    /// What the image manager loads: an absolute path or a URL.
    let location: String
    /// How the user would recognise it in an error line (the path as typed or found).
    let display: String
    /// The folder holding the file, for relative templates; nil for a URL.
    let folder: String?
    /// The file's folder relative to the folder argument it was found in ("" at its top), for --out-dir.
    let relativeFolder: String
    let stem: String
    let fileExtension: String

    init(location: String, display: String, relativeFolder: String = "") {
        self.location = location
        self.display = display
        self.relativeFolder = relativeFolder
        let isURL = DecodeArguments.isURL(location)
        folder = isURL ? nil : PathText.parent(of: location)
        var name = PathText.lastComponent(of: isURL ? String(location.split(separator: "?").first ?? "") : location)
        if name.isEmpty { name = "image" }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            stem = String(name[..<dot])
            fileExtension = String(name[name.index(after: dot)...])
        } else {
            stem = name
            fileExtension = ""
        }
    }

    var isLocal: Bool { !PipelineSetup.isRemote(location) }
}

/// Hands out a batch's sources one at a time, to any number of lanes, finding them lazily: folders are listed as
/// the walk reaches them (sorted, so outputs come in a stable order), standard input is read a line at a time.
/// Memory holds the folders still to visit, never the whole list: a million files cost no more than ten.
///
/// In a folder, only files whose extension a coder claims are taken (a camera folder's .xmp and .txt are not
/// failures), hidden files are skipped, and so are files this command wrote (they carry its stamp: a rerun over
/// a folder that holds its own thumbnails does not make thumbnails of thumbnails). A file named on the command
/// line is always tried. Links to folders are not followed (no cycles).
final class SourceFeed: Sendable {
    /// A folder still to list: its absolute path, the path errors show, and its path below the folder argument.
    private struct Folder {
        let path: String
        let shown: String
        let relative: String
    }

    private struct Pending {
        var arguments: [String]
        var folders: [Folder] = []
        /// Files of the folder being walked, in reverse name order (taken from the end).
        var files: [BatchSource] = []
        var readingStandardInput = false
        var standardInput = LineReader()
        /// The --manifest file, read after the arguments (nil: none, or read to its end).
        var manifest: LineReader?
        var manifestName = ""
        var skippedNonImages = 0
    }

    private let state: Mutex<Pending>
    private let recursive: Bool
    private let imageExtensions: Set<String>
    private let stop = Atomic<Bool>(false)
    private let shard: BatchShard?

    /// `manifest`: an open descriptor of the --manifest file and its name (the feed closes it at its end).
    init(arguments: [String], recursive: Bool, imageExtensions: Set<String>, shard: BatchShard? = nil,
         manifest: (descriptor: Int32, name: String)? = nil) {
        var pending = Pending(arguments: arguments)
        if let manifest {
            pending.manifest = LineReader(descriptor: manifest.descriptor)
            pending.manifestName = manifest.name
        }
        state = Mutex(pending)
        self.recursive = recursive
        self.imageExtensions = imageExtensions
        self.shard = shard
    }

    /// Files a folder walk passed over because no coder claims their extension.
    var skippedNonImages: Int { state.withLock { $0.skippedNonImages } }

    /// Stops handing out sources (--fail-fast, an interrupt).
    func close() { stop.store(true, ordering: .relaxed) }

    /// The next source of this run's shard (all of them without --shard).
    func next() -> BatchSource? {
        while let source = nextFound() {
            if shard?.contains(source) ?? true { return source }
        }
        return nil
    }

    private func nextFound() -> BatchSource? {
        guard !stop.load(ordering: .relaxed) else { return nil }
        return state.withLock { state in
            while true {
                if let file = state.files.popLast() { return file }
                if !state.folders.isEmpty {
                    let folder = state.folders.removeFirst()
                    list(folder, into: &state)
                    continue
                }
                if state.readingStandardInput {
                    if let line = state.standardInput.nextLine() {
                        let text = line.trimmingWhitespace()
                        if text.isEmpty { continue }
                        return source(forArgument: text, into: &state)
                    }
                    state.readingStandardInput = false
                    continue
                }
                if state.arguments.isEmpty, state.manifest != nil {
                    guard let line = state.manifest?.nextLine() else {
                        state.manifest?.close()
                        state.manifest = nil
                        continue
                    }
                    let text = line.trimmingWhitespace()
                    if text.isEmpty { continue }
                    guard let named = ManifestLine.source(text) else {
                        // A line that names nothing is reported like a source that cannot be read.
                        return BatchSource(location: state.manifestName + ": " + text, display: state.manifestName + ": " + text)
                    }
                    return source(forArgument: named, into: &state)
                }
                guard !state.arguments.isEmpty else { return nil }
                let argument = state.arguments.removeFirst()
                if argument == "-" { state.readingStandardInput = true; continue }
                if let source = source(forArgument: argument, into: &state) { return source }
            }
        }
    }

    /// A URL or file becomes a source; a folder is queued for listing (nil).
    private func source(forArgument argument: String, into state: inout Pending) -> BatchSource? {
        if DecodeArguments.isURL(argument) { return BatchSource(location: argument, display: argument) }
        let path = DecodeArguments.source(argument)
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            state.folders.append(Folder(path: trimmedFolder(path), shown: trimmedFolder(argument), relative: ""))
            return nil
        }
        return BatchSource(location: path, display: argument)
    }

    private func trimmedFolder(_ path: String) -> String {
        var path = path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }

    private func list(_ folder: Folder, into state: inout Pending) {
        guard let directory = opendir(folder.path) else {
            // An unreadable folder is a failure of its own, reported like a file that cannot be read.
            state.files.append(BatchSource(location: folder.path, display: folder.shown))
            return
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(".") { continue }
            names.append(name)
        }
        names.sort()
        var subfolders: [Folder] = []
        var found: [BatchSource] = []
        for name in names {
            let path = folder.path == "/" ? "/" + name : folder.path + "/" + name
            let shown = folder.shown + "/" + name
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            var kind = status.st_mode & S_IFMT
            if kind == S_IFLNK {
                guard stat(path, &status) == 0 else { continue }
                kind = status.st_mode & S_IFMT
                if kind == S_IFDIR { continue }  // no cycles
            }
            if kind == S_IFDIR {
                if recursive { subfolders.append(Folder(path: path, shown: shown, relative: folder.relative.isEmpty ? name : folder.relative + "/" + name)) }
                continue
            }
            guard kind == S_IFREG else { continue }
            let ext = name.lastIndex(of: ".").map { name[name.index(after: $0)...].lowercased() } ?? ""
            guard imageExtensions.contains(ext) else { state.skippedNonImages += 1; continue }
            if OutputStamp.isStamped(path) { continue }
            found.append(BatchSource(location: path, display: shown, relativeFolder: folder.relative))
        }
        state.files = found.reversed()
        // Depth first, in name order: a subfolder's files come before the next sibling folder's.
        state.folders.insert(contentsOf: subfolders, at: 0)
    }

    /// How many sources the arguments name, found by walking the same way without keeping them; nil when standard
    /// input is one of them (its end is not known in advance). For the progress bar's total and ETA.
    static func count(arguments: [String], recursive: Bool, imageExtensions: Set<String>, shard: BatchShard? = nil) -> Int? {
        guard !arguments.contains("-") else { return nil }
        let feed = SourceFeed(arguments: arguments, recursive: recursive, imageExtensions: imageExtensions, shard: shard)
        var count = 0
        while feed.next() != nil { count += 1 }
        return count
    }
}

/// Lines of standard input (or of another descriptor), read in blocks (a list of a million paths is never held at
/// once).
struct LineReader {
    private var buffer: [UInt8] = []
    private var ended = false
    private let descriptor: Int32

    init(descriptor: Int32 = 0) { self.descriptor = descriptor }

    /// Closes the descriptor unless it is standard input.
    func close() { if descriptor != 0 { _ = Glibc.close(descriptor) } }

    mutating func nextLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            if ended {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 14)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { ended = true; continue }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
