#if canImport(Glibc)
import Glibc
#endif

/// The decoding curves of HDR transfers, tone-mapped to SDR: signal 0...1 → linear light 0...1 where 1 is SDR
/// white. Used as the tone curve of an ICC profile, so Little CMS then does the primaries conversion and the sRGB
/// encoding in the same pass as for any other profile.
///
/// The operator, stated so results can be checked:
/// - PQ: SMPTE ST 2084 EOTF to absolute nits. HLG: ITU-R BT.2100 inverse OETF, then the OOTF per channel
///   (Fd = 1000 · E^1.2, nominal 1000-nit display; per channel rather than on luminance, a simplification).
/// - Then ITU-R BT.2390 EETF (the Hermite knee, in the PQ domain) from a 1000-nit source peak to SDR reference
///   white, 203 nits (ITU-R BT.2408), which becomes 1.0. Below the knee (about 95 nits) light passes unchanged, so
///   mid-tones keep their level; highlights roll off smoothly instead of clipping; all above 1000 nits is white.
/// The curve is per channel (BT.2390 allows R'G'B' as well as ICtCp), so hues of bright highlights shift
/// towards white, as in most SDR renditions of HDR stills.
enum HDRToneCurve {
    static let sourcePeakNits = 1000.0
    static let sdrWhiteNits = 203.0

    /// Samples of the tone-mapped curve for `transfer` (CICP 16 = PQ, 18 = HLG).
    static func samples(transfer: Int, count: Int = 4096) -> [Float] {
        (0..<count).map { index in
            let signal = Double(index) / Double(count - 1)
            let nits = transfer == CICP.hlg ? hlgDisplayNits(signal) : pqNits(signal)
            return Float(toneMapped(nits: nits))
        }
    }

    /// Linear 0...1 (SDR white = 1) for absolute `nits`, through the BT.2390 EETF.
    static func toneMapped(nits: Double) -> Double {
        let sourcePeak = pqSignal(nits: sourcePeakNits)
        let e1 = min(pqSignal(nits: nits) / sourcePeak, 1)
        let maxLuminance = pqSignal(nits: sdrWhiteNits) / sourcePeak
        let kneeStart = 1.5 * maxLuminance - 0.5
        var e2 = e1
        if e1 > kneeStart {
            let t = (e1 - kneeStart) / (1 - kneeStart)
            let t2 = t * t, t3 = t2 * t
            e2 = (2 * t3 - 3 * t2 + 1) * kneeStart + (t3 - 2 * t2 + t) * (1 - kneeStart) + (-2 * t3 + 3 * t2) * maxLuminance
        }
        return min(max(pqNits(e2 * sourcePeak) / sdrWhiteNits, 0), 1)
    }

    // SMPTE ST 2084 constants.
    private static let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
    private static let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32

    /// PQ EOTF: signal 0...1 → nits 0...10000.
    static func pqNits(_ signal: Double) -> Double {
        let p = pow(max(signal, 0), 1 / m2)
        return 10000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }

    /// PQ inverse EOTF: nits → signal 0...1.
    static func pqSignal(nits: Double) -> Double {
        let y = pow(min(max(nits, 0) / 10000, 1), m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// HLG inverse OETF (scene light 0...1), then the nominal 1000-nit OOTF per channel.
    static func hlgDisplayNits(_ signal: Double) -> Double {
        let a = 0.17883277, b = 1 - 4 * 0.17883277, c = 0.5 - 0.17883277 * log(4 * 0.17883277)
        let s = max(signal, 0)
        let scene = s <= 0.5 ? s * s / 3 : (exp((s - c) / a) + b) / 12
        return sourcePeakNits * pow(scene, 1.2)
    }
}
