import CLCMS2
#if canImport(Glibc)
import Glibc
#endif

/// Owned Little CMS handles. A profile is used by one thread at a time (the one that opened it, or `TransformCache`
/// under its lock); transforms are created with cmsFLAGS_NOCACHE, which makes one transform safe to run on many
/// threads at once.
final class LCMSProfile: @unchecked Sendable {  // a C handle, never used by two threads at once
    let handle: cmsHPROFILE
    init?(_ handle: cmsHPROFILE?) {
        guard let handle else { return nil }
        self.handle = handle
    }
    deinit { cmsCloseProfile(handle) }

    convenience init?(icc bytes: [UInt8]) {
        self.init(bytes.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
    }

    static func sRGB() -> LCMSProfile { LCMSProfile(cmsCreate_sRGBProfile())! }

    /// An RGB matrix/shaper profile from chromaticities and one tone curve for the three channels.
    static func rgb(_ c: Chromaticities, curve: LCMSToneCurve, description: String? = nil) -> LCMSProfile? {
        var white = cmsCIExyY(x: c.white.x, y: c.white.y, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: c.red.x, y: c.red.y, Y: 1),
                                        Green: cmsCIExyY(x: c.green.x, y: c.green.y, Y: 1),
                                        Blue: cmsCIExyY(x: c.blue.x, y: c.blue.y, Y: 1))
        var curves: [OpaquePointer?] = [curve.handle, curve.handle, curve.handle]
        guard let profile = LCMSProfile(curves.withUnsafeMutableBufferPointer { cmsCreateRGBProfile(&white, &primaries, $0.baseAddress) }) else {
            return nil
        }
        if let description { profile.setDescription(description) }
        return profile
    }

    var colorSpace: cmsColorSpaceSignature { cmsGetColorSpace(handle) }

    /// The profile's description tag ("Display P3", "sRGB IEC61966-2.1"), or nil.
    var description: String? {
        let size = cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", nil, 0)
        guard size > 1, size < 4096 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(size))
        _ = cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", &buffer, size)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? nil : text
    }

    func setDescription(_ text: String) {
        guard let mlu = cmsMLUalloc(nil, 1) else { return }
        defer { cmsMLUfree(mlu) }
        cmsMLUsetASCII(mlu, "en", "US", text)
        _ = cmsWriteTag(handle, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu))
    }

    /// The profile serialised as ICC bytes (for labelling outputs).
    var iccBytes: [UInt8]? {
        var size: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(handle, nil, &size) != 0, size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        guard bytes.withUnsafeMutableBytes({ cmsSaveProfileToMem(handle, $0.baseAddress, &size) }) != 0 else { return nil }
        return bytes
    }
}

/// An owned tone curve.
final class LCMSToneCurve: @unchecked Sendable {  // a C handle, read-only once built
    let handle: OpaquePointer
    private init?(_ handle: OpaquePointer?) {
        guard let handle else { return nil }
        self.handle = handle
    }
    deinit { cmsFreeToneCurve(handle) }

    /// ICC parametric curve: type 1 is y = x^g; type 4 is the sRGB/BT.709 shape (g, a, b, c, d).
    static func parametric(type: Int32, _ parameters: [Double]) -> LCMSToneCurve? {
        LCMSToneCurve(parameters.withUnsafeBufferPointer { cmsBuildParametricToneCurve(nil, type, $0.baseAddress) })
    }

    static func gamma(_ exponent: Double) -> LCMSToneCurve? { LCMSToneCurve(cmsBuildGamma(nil, exponent)) }

    /// A sampled curve (decoding direction: signal 0...1 → linear 0...1).
    static func tabulated(_ samples: [Float]) -> LCMSToneCurve? {
        LCMSToneCurve(samples.withUnsafeBufferPointer { cmsBuildTabulatedToneCurveFloat(nil, cmsUInt32Number($0.count), $0.baseAddress) })
    }

    /// The sRGB curve (IEC 61966-2-1).
    static var sRGB: LCMSToneCurve { parametric(type: 4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])! }
}

/// A compiled transform between two pixel layouts.
final class LCMSTransform: @unchecked Sendable {  // cmsFLAGS_NOCACHE transforms are safe to share between threads
    let handle: cmsHTRANSFORM
    init?(from source: LCMSProfile, _ inputFormat: cmsUInt32Number, to destination: LCMSProfile,
          _ outputFormat: cmsUInt32Number, copyAlpha: Bool) {
        // Relative colorimetric with black-point compensation: what libvips' thumbnail and most photo tools use.
        var flags = cmsUInt32Number(cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOCACHE)
        if copyAlpha { flags |= cmsUInt32Number(cmsFLAGS_COPY_ALPHA) }
        guard let handle = cmsCreateTransform(source.handle, inputFormat, destination.handle, outputFormat,
                                              cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), flags) else { return nil }
        self.handle = handle
    }
    deinit { cmsDeleteTransform(handle) }

    func run(_ input: UnsafeRawPointer, inputStride: Int, _ output: UnsafeMutableRawPointer, outputStride: Int,
             width: Int, height: Int) {
        cmsDoTransformLineStride(handle, input, output, cmsUInt32Number(width), cmsUInt32Number(height),
                                 cmsUInt32Number(inputStride), cmsUInt32Number(outputStride), 0, 0)
    }
}
