/// A small seeded random number generator (SplitMix64), so that random-damage tests are the same on every run
/// and a failure reproduces from its seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SplitMix64 {
    /// Opaque RGBA noise, `width × height`: pixels no PNG filter or deflate can shrink, so a test can make a source
    /// of a chosen size (about 3 bytes a pixel as PNG) whose decode takes measurable time.
    public static func opaqueNoise(width: Int, height: Int, seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for i in pixels.indices where i % 4 != 3 { pixels[i] = UInt8(truncatingIfNeeded: generator.next()) }
        return pixels
    }
}
