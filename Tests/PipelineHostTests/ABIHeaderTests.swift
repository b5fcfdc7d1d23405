import Foundation
import Testing
import TestSupport

/// The ABI headers are the spec: they must compile cleanly as C11 and C++17 with every warning as an error.
@Suite struct ABIHeaderTests {
    private static let program = """
        #include "imagepipe/imagepipe.h"
        #include <stdio.h>
        int main(void) {
            ip_placement p = ip_place(400.0, 200.0, 100, 100, IP_SCALE_ASPECT_FILL, 0);
            ip_placement q = ip_place(400.0, 200.0, 0, 50, IP_SCALE_FIT, 0);
            printf("%u %u %.3f %.3f %u %u\\n", p.out_width, p.out_height, p.scale_x, p.offset_x, q.out_width, q.out_height);
            return (int)(sizeof(ip_coder) == 0);
        }
        """

    @Test(arguments: [("cc", "-std=c11", "c"), ("c++", "-std=c++17", "c++")])
    func headersCompileWithoutWarnings(compiler: String, standard: String, language: String) throws {
        let folder = try TestPaths.temporaryDirectory()
        let source = folder + "/check.src"
        try Data(Self.program.utf8).write(to: URL(fileURLWithPath: source))
        let result = try CommandLine.run("/usr/bin/env", [
            compiler, standard, "-Wall", "-Wextra", "-pedantic", "-Werror", "-x", language,
            "-I", TestPaths.repositoryRoot + "/Sources/PluginAPI/include", source, "-o", folder + "/check",
        ])
        #expect(result.status == 0, "\(compiler) \(standard): \(result.stderr)")
        let run = try CommandLine.run(folder + "/check", [])
        // aspect-fill of 400x200 into 100x100: scale 0.5, drawn 200 wide, centred → offset -50.
        #expect(run.stdout == "100 100 0.500 -50.000 100 50\n")
    }
}
