import Foundation
import Testing
import TestSupport

/// The ABI headers are the spec: they must compile cleanly as C11, C17, C++11 and C++17, with GCC and (when
/// installed) clang, with every warning as an error; and a C++ plugin's entry point keeps its C name.
@Suite struct ABIHeaderTests {
    private static let program = """
        #include "imagepipe/imagepipe.h"
        #include <stdio.h>
        #include <string.h>
        int main(void) {
            ip_decode_tint tint = {{sizeof(ip_decode_tint), IP_DECODE_EXTENSION_TINT, NULL}, 0xFF0000FFu, IP_TINT_TEMPLATE};
            ip_place_request place = {sizeof(ip_place_request), 400.0, 200.0, 100, 100, IP_SCALE_ASPECT_FILL, 0};
            ip_decode_options options;
            memset(&options, 0, sizeof options);
            options.extensions = &tint.head;
            printf("%s %u %.0f\\n", options.extensions->id, (unsigned)(tint.rgba >> 24), place.source_width);
            return (int)(sizeof(ip_coder) == 0);
        }
        """

    @Test(arguments: [("cc", "-std=c11", "c"), ("cc", "-std=c17", "c"), ("c++", "-std=c++11", "c++"), ("c++", "-std=c++17", "c++"),
                      ("/usr/bin/clang-14", "-std=c11", "c"), ("/usr/bin/clang-14", "-std=c17", "c"),
                      ("/usr/bin/clang++-14", "-std=c++11", "c++"), ("/usr/bin/clang++-14", "-std=c++17", "c++")])
    func headersCompileWithoutWarnings(compiler: String, standard: String, language: String) throws {
        if compiler.hasPrefix("/"), !FileManager.default.isExecutableFile(atPath: compiler) {
            try Skip.because("\(compiler) is not installed (scripts/bootstrap installs clang-14)", bootstrapProvides: true)
        }
        let folder = try TestPaths.temporaryDirectory()
        let source = folder + "/check.src"
        try Data((Self.program + "\n").utf8).write(to: URL(fileURLWithPath: source))  // clang: -Wnewline-eof
        let result = try CommandLine.run("/usr/bin/env", [
            compiler, standard, "-Wall", "-Wextra", "-pedantic", "-Werror", "-x", language,
            "-I", TestPaths.repositoryRoot + "/Sources/PluginAPI/include", source, "-o", folder + "/check",
        ])
        #expect(result.status == 0, "\(compiler) \(standard): \(result.stderr)")
        let run = try CommandLine.run(folder + "/check", [])
        #expect(run.stdout == "org.imagepipe.decode.tint/1 255 400\n")
    }

    @Test("a plugin written in C++ exports imagepipe_plugin_entry unmangled (the headers give it C linkage)")
    func cplusplusEntryKeepsItsCName() throws {
        let folder = try TestPaths.temporaryDirectory()
        let source = folder + "/entry.cpp"
        try Data("""
            #include "imagepipe/imagepipe.h"
            static const ip_plugin_entry entry = {sizeof(ip_plugin_entry), IP_ABI_MAJOR, IP_ABI_MINOR, "org.example.cpp", "C++",
                                                  "1.0", "example", "a C++ plugin", nullptr, nullptr, nullptr, nullptr};
            IP_EXPORT const ip_plugin_entry *imagepipe_plugin_entry(void) { return &entry; }
            """.utf8).write(to: URL(fileURLWithPath: source))
        let build = try CommandLine.run("/usr/bin/env", ["c++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
                                                          "-fvisibility=hidden", "-I", TestPaths.repositoryRoot + "/Sources/PluginAPI/include",
                                                          source, "-o", folder + "/libcpp.so"])
        #expect(build.status == 0, "\(build.stderr)")
        let symbols = try CommandLine.run("/usr/bin/nm", ["-D", "--defined-only", folder + "/libcpp.so"])
        let exported = symbols.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
            .filter { !$0.hasPrefix("_init") && !$0.hasPrefix("_fini") }
        #expect(exported == ["imagepipe_plugin_entry"], "\(symbols.stdout)")
    }

    @Test("no installed plugin defines an imagepipe_ symbol but its entry (the ABI target links nothing into a plugin)")
    func pluginsCarryNoABISymbols() throws {
        try Skip.unlessTool("nm")
        let plugins = try FileManager.default.contentsOfDirectory(atPath: TestPaths.pluginsDirectory).filter { $0.hasSuffix(".so") }
        #expect(!plugins.isEmpty)
        for plugin in plugins {
            let symbols = try CommandLine.run("/usr/bin/nm", ["--defined-only", TestPaths.pluginsDirectory + "/" + plugin])
            let ours = symbols.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
                .filter { $0.hasPrefix("imagepipe_") && $0 != "imagepipe_plugin_entry" }
            #expect(ours.isEmpty, "\(plugin) defines \(ours)")
        }
    }
}
