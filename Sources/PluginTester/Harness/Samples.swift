#if canImport(Glibc)
import Glibc
#endif
import PluginAPI

/// A sample input of the coder under test, with what its probe said.
///
/// `@unchecked Sendable`: `ip_image_info`'s one pointer (the ICC profile, freed with the probe's call) is cleared
/// here, so the stored value is plain data.
struct Sample: @unchecked Sendable {
    let name: String
    let bytes: [UInt8]
    let info: ip_image_info

    init(name: String, bytes: [UInt8], info: ip_image_info) {
        self.name = name
        self.bytes = bytes
        var plain = info
        plain.icc_profile = nil
        plain.icc_size = 0
        self.info = plain
    }

    var width: Int { Int(info.width) }
    var height: Int { Int(info.height) }
    var frameCount: Int { Int(info.frame_count) }
    var pageCount: Int { max(1, Int(info.page_count)) }
}

/// The samples a coder check works on: the files the parent chose (by the coder's extensions, from the corpus or
/// --samples), or, when there are none and the coder encodes, its own encoding of the synthetic image.
enum Samples {
    struct Set {
        var usable: [Sample] = []
        /// Samples whose probe or decode failed, with the reason (reported once, by coder.decode).
        var rejected: [String] = []
        var synthetic = false
    }

    static func load(_ context: CheckContext, _ coder: CoderUnderTest) -> Set {
        var set = Set()
        for path in context.settings.samples {
            let name = path.split(separator: "/").suffix(2).joined(separator: "/")
            guard let bytes = readFile(path) else { set.rejected.append("\(name): cannot read"); continue }
            let probed = coder.probe(bytes, label: "probe sample \(name)")
            guard probed.ok, let info = probed.value else { set.rejected.append("\(name): probe returned \(probed.statusText)"); continue }
            set.usable.append(Sample(name: name, bytes: bytes, info: info))
        }
        if set.usable.isEmpty && coder.info.encodes && coder.info.decodes {
            let encoded = SyntheticImage.encode(coder, label: "encode the synthetic sample")
            if encoded.ok, let bytes = encoded.value, !bytes.isEmpty {
                let probed = coder.probe(bytes, label: "probe the synthetic sample")
                if probed.ok, let info = probed.value {
                    set.usable.append(Sample(name: "synthetic.\(coder.info.extensions.first ?? coder.info.format)", bytes: bytes, info: info))
                    set.synthetic = true
                } else {
                    set.rejected.append("its own encoding of a synthetic image: probe returned \(probed.statusText)")
                }
            } else {
                set.rejected.append("encoding a synthetic image for a sample failed: \(encoded.statusText)")
            }
        }
        // An animated coder that encodes also gets its own 3-frame animation, so the frame checks have frames.
        if set.synthetic && coder.info.has(IP_CODER_ANIMATED) {
            let encoded = SyntheticImage.encodeAnimation(coder, label: "encode a 3-frame synthetic animation")
            if encoded.ok, let bytes = encoded.value {
                let probed = coder.probe(bytes, label: "probe the synthetic animation")
                if probed.ok, let info = probed.value {
                    set.usable.append(Sample(name: "synthetic-animation.\(coder.info.extensions.first ?? coder.info.format)",
                                             bytes: bytes, info: info))
                }
            }
        }
        return set
    }

    /// The samples of a check, or a skip when there are none.
    static func require(_ context: CheckContext, _ coder: CoderUnderTest) throws -> [Sample] {
        let set = load(context, coder)
        guard !set.usable.isEmpty else {
            throw context.skip(context.settings.samples.isEmpty
                ? "no samples of \(coder.info.format) (none under --samples and the coder cannot encode one)"
                : "no usable sample: \(set.rejected.joined(separator: "; "))")
        }
        return set.usable
    }

    /// The whole file, read with POSIX calls (procfs-safe, no Foundation).
    static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }
}
