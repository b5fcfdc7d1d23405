import PipelineHost
import Testing

/// Result keys: the same result ⇒ the same key, any change of what the pixels depend on ⇒ another key, and keys
/// that do not move between runs or releases without a reason (they name entries in persistent caches).
struct ResultKeyTests {
    private func key(_ options: DecodeOptions, _ transformers: [any ImageTransforming] = []) -> String {
        ImageCacheKey(ImageRequest(url: "https://example.org/a.png", options: options, transformers: transformers)).imageKey
    }

    /// One change per field of DecodeOptions. A field added to DecodeOptions without an entry here fails the
    /// completeness check below, so nobody adds an option that silently shares cached results with another.
    private static let changes: [String: @Sendable (inout DecodeOptions) -> Void] = [
        "thumbnailSize": { $0.thumbnailSize = PixelSize(width: 64, height: 64) },
        "scaleMode": { $0.thumbnailSize = PixelSize(width: 64, height: 64); $0.scaleMode = .aspectFill },
        "pageIndex": { $0.pageIndex = 2 },
        "frameIndex": { $0.frameIndex = 3 },
        "firstFrameOnly": { $0.firstFrameOnly = true },
        "tint": { $0.tint = RGBAColor(red: 255, green: 0, blue: 0) },
        "template": { $0.template = true },
        "allowUpscale": { $0.allowUpscale = true },
        "highBitDepth": { $0.highBitDepth = true },
        "transparentBackground": { $0.transparentBackground = true },
        "ignoreOrientation": { $0.ignoreOrientation = true },
        "colorOutput": { $0.colorOutput = .displayP3 },
        "gravity": { $0.gravity = .top },
        "scaleDownLimitBytes": { $0.scaleDownLimitBytes = 1 << 20 },
        "focus": { $0.focus = .attention },
        "trim": { $0.trim = TrimOptions() },
        "autoScaleMode": { $0.autoScaleMode = true },
    ]
    /// Fields that decide whether a decode may run or how fast, never which pixels it gives.
    private static let notInKey: [String: @Sendable (inout DecodeOptions) -> Void] = [
        "threads": { $0.threads = 4 },
        "limits": { $0.limits.maxPixels = 1000 },
        "sourceURL": { $0.sourceURL = "file:///elsewhere.png" },
        "password": { $0.password = "secret" },
    ]

    @Test("every DecodeOptions field is classified: in the key or (limits, threads, hints, password) not")
    func everyFieldIsClassified() {
        let fields = Set(Mirror(reflecting: DecodeOptions()).children.compactMap(\.label))
        #expect(fields == Set(Self.changes.keys).union(Self.notInKey.keys))
    }

    @Test("each option that changes the pixels changes the key, each to a different key; the others do not")
    func optionChangesChangeTheKey() {
        let base = key(DecodeOptions())
        var seen: Set<String> = [base]
        for (name, change) in Self.changes.sorted(by: { $0.key < $1.key }) {
            var options = DecodeOptions()
            change(&options)
            let changed = key(options)
            #expect(changed != base, "\(name)")
            #expect(!seen.contains(changed), "\(name) collides with another option's key: \(changed)")
            seen.insert(changed)
        }
        for (name, change) in Self.notInKey {
            var options = DecodeOptions()
            change(&options)
            #expect(key(options) == base, "\(name) must not split the cache")
        }
    }

    @Test("transformer keys: equal parameters give equal keys, any parameter change another key, order matters")
    func transformerKeys() {
        let transformers: [any ImageTransforming] = [
            ImageTransformers.GaussianBlur(sigma: 2), ImageTransformers.GaussianBlur(sigma: 2.5),
            ImageTransformers.Sharpen(), ImageTransformers.Sharpen(sigma: 1, amount: 1), ImageTransformers.Sharpen(sigma: 0.5, amount: 2),
            ImageTransformers.RoundedCorners(radius: 8), ImageTransformers.RoundedCorners(radius: 9),
            ImageTransformers.Circle(), ImageTransformers.Circle(gravity: .top),
            ImageTransformers.Crop(x: 0, y: 0, width: 10, height: 10), ImageTransformers.Crop(x: 1, y: 0, width: 10, height: 10),
            ImageTransformers.Crop(size: PixelSize(width: 10, height: 10)), ImageTransformers.Crop(size: PixelSize(width: 10, height: 10), gravity: .left),
            ImageTransformers.Crop(aspectRatio: 16, 9), ImageTransformers.Crop(aspectRatio: 9, 16),
            ImageTransformers.Rotate(.quarter), ImageTransformers.Rotate(.half), ImageTransformers.Flip(.horizontal), ImageTransformers.Flip(.vertical),
            ImageTransformers.Grayscale(), ImageTransformers.Flatten(background: RGBAColor(red: 1, green: 2, blue: 3)),
            ImageTransformers.Flatten(background: RGBAColor(red: 1, green: 2, blue: 4)),
            ImageTransformers.ResizeTo(size: PixelSize(width: 8, height: 8)), ImageTransformers.ResizeTo(size: PixelSize(width: 8, height: 8), mode: .aspectFill),
            ImageTransformers.ResizeTo(size: PixelSize(width: 8, height: 8), mode: .aspectFill, gravity: .bottom),
        ]
        let keys = transformers.map(\.identifier)
        #expect(Set(keys).count == keys.count, "\(keys)")
        #expect(ImageTransformers.GaussianBlur(sigma: 2).key == ImageTransformers.GaussianBlur(sigma: 2.0).key)
        let blur = ImageTransformers.GaussianBlur(sigma: 2), gray = ImageTransformers.Grayscale()
        #expect(key(DecodeOptions(), [blur, gray]) != key(DecodeOptions(), [gray, blur]))
        // A chain names the same result as its steps given one by one? No: a chain is one transformer, so its key
        // nests the steps; what matters is that it is stable and distinct from a single step.
        #expect(ImageTransformers.Chain([blur, gray]).identifier == "chain(blur(sigma=2),grayscale(rec709luma))")
    }

    @Test("keys are stable across runs and releases (persistent caches are keyed by them)")
    func keysAreStable() {
        let options = DecodeOptions(thumbnailSize: PixelSize(width: 256, height: 256), scaleMode: .aspectFill,
                                    tint: RGBAColor(red: 255, green: 0, blue: 0), template: true, gravity: .topLeft)
        let transformers: [any ImageTransforming] = [
            ImageTransformers.Crop(aspectRatio: 16, 9, gravity: .bottom), ImageTransformers.GaussianBlur(sigma: 1.5),
            ImageTransformers.RoundedCorners(radius: 12), ImageTransformers.Rotate(.threeQuarters),
        ]
        #expect(key(options, transformers) == "ip2|image|https://example.org/a.png|size=256x256|mode=aspect-fill|gravity=top-left"
                + "|tint=#ff0000ff|template|t=crop(aspect=16:9,gravity=bottom)|t=blur(sigma=1.5)|t=rounded(radius=12)|t=rotate(270)")
        #expect(key(DecodeOptions()) == "ip2|image|https://example.org/a.png")
    }
}
