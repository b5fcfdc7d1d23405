import Foundation
import PipelineHost
import Testing
import TestSupport

/// A CMYK JPEG XL (K as a black extra channel, a CMYK ICC profile) is refused with one clear line: libjxl 0.7 hands
/// back its colour channels without K, so decoding would give wrong pixels silently. cjxl 0.7 cannot write such a
/// file, so the test writes one with libjxl's encoder from a small C program (built here with cc, as the ABI
/// fixtures are).
@Suite("JPEG XL CMYK")
struct JXLCMYKTests {
    static let program = #"""
    #include <jxl/encode.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    int main(int argc, char **argv) {
        if (argc != 3) return 2;
        FILE *p = fopen(argv[1], "rb"); if (!p) return 3;
        fseek(p, 0, SEEK_END); long n = ftell(p); rewind(p);
        unsigned char *icc = malloc(n); if (fread(icc, 1, n, p) != (size_t)n) return 4; fclose(p);
        JxlEncoder *e = JxlEncoderCreate(NULL);
        JxlBasicInfo b; JxlEncoderInitBasicInfo(&b);
        b.xsize = 16; b.ysize = 16; b.bits_per_sample = 8; b.num_color_channels = 3; b.num_extra_channels = 1;
        b.uses_original_profile = JXL_TRUE;
        if (JxlEncoderSetBasicInfo(e, &b) != JXL_ENC_SUCCESS) return 5;
        JxlExtraChannelInfo k; JxlEncoderInitExtraChannelInfo(JXL_CHANNEL_BLACK, &k); k.bits_per_sample = 8;
        if (JxlEncoderSetExtraChannelInfo(e, 0, &k) != JXL_ENC_SUCCESS) return 6;
        if (JxlEncoderSetICCProfile(e, icc, n) != JXL_ENC_SUCCESS) return 7;
        JxlEncoderFrameSettings *s = JxlEncoderFrameSettingsCreate(e, NULL);
        JxlEncoderSetFrameLossless(s, JXL_TRUE);
        unsigned char cmy[16 * 16 * 3], black[16 * 16];
        for (int i = 0; i < 16 * 16; i++) { cmy[3 * i] = i; cmy[3 * i + 1] = 255 - i; cmy[3 * i + 2] = 128; black[i] = i / 2; }
        JxlPixelFormat f3 = {3, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0}, f1 = {1, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
        if (JxlEncoderAddImageFrame(s, &f3, cmy, sizeof cmy) != JXL_ENC_SUCCESS) return 8;
        if (JxlEncoderSetExtraChannelBuffer(s, &f1, black, sizeof black, 0) != JXL_ENC_SUCCESS) return 9;
        JxlEncoderCloseInput(e);
        static unsigned char out[1 << 21]; unsigned char *next = out; size_t avail = sizeof out;
        if (JxlEncoderProcessOutput(e, &next, &avail) != JXL_ENC_SUCCESS) return 10;
        FILE *o = fopen(argv[2], "wb"); fwrite(out, 1, next - out, o); fclose(o);
        return 0;
    }
    """#

    @Test("a CMYK file is UNSUPPORTED with one line from probe and decode, never wrong pixels")
    func cmykIsRefused() throws {
        let icc = "/usr/share/color/icc/ghostscript/default_cmyk.icc"
        guard FileManager.default.fileExists(atPath: icc) else { try Skip.because("\(icc) (ghostscript) is missing", bootstrapProvides: true) }
        let folder = try TestPaths.temporaryDirectory("jxl-cmyk")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(Self.program.utf8).write(to: URL(fileURLWithPath: folder + "/cmyk.c"))
        let flags = try CommandLine.run("/usr/bin/pkg-config", ["--cflags", "--libs", "libjxl"])
        try #require(flags.status == 0, "\(flags.stderr)")
        let build = try CommandLine.run("/usr/bin/cc", ["-O1", "-o", folder + "/cmyk", folder + "/cmyk.c"]
                                        + flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init))
        try #require(build.status == 0, "\(build.stderr)")
        let made = try CommandLine.run(folder + "/cmyk", [icc, folder + "/cmyk.jxl"])
        try #require(made.status == 0, "the C program failed with \(made.status)")
        let bytes = try TestFiles.read(folder + "/cmyk.jxl")
        let coders = try JXLTesting.coders()
        for (what, call) in [("probe", { _ = try coders.probe(data: bytes) }), ("decode", { _ = try coders.decode(data: bytes) })] as [(String, () throws -> Void)] {
            do {
                try call()
                Issue.record("\(what) of a CMYK JPEG XL succeeded")
            } catch let error as PipelineError {
                #expect(error.status == .unsupported, "\(what): \(error)")
                #expect("\(error)".contains("CMYK") && !"\(error)".contains("\n"), "\(what): \(error)")
            }
        }
    }
}
