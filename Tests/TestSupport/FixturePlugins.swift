import Foundation

/// Builds the configurable C test plugin (Tests/Fixtures/fixture_plugin.c) with `cc`, one variant per call.
public enum FixturePlugins {
    /// Compiles a variant into `directory/name` with `-D` defines such as `"FIXTURE_MAGIC=\"ABCD\""` or `"BROKEN_INIT_FAILS"`,
    /// against the live ABI headers or another copy of them (`headers`: a folder holding `imagepipe/`).
    @discardableResult
    public static func build(_ name: String, in directory: String, defines: [String] = [], headers: String? = nil,
                             source: String = "fixture_plugin.c") throws -> String {
        let output = directory + "/" + name
        let arguments = ["-std=c11", "-O0", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall", "-Wextra", "-Werror",
                         "-I", headers ?? (TestPaths.repositoryRoot + "/Sources/PluginAPI/include")]
            + defines.map { "-D" + $0 }
            + ["-o", output, TestPaths.repositoryRoot + "/Tests/Fixtures/" + source]
        let result = try CommandLine.run("/usr/bin/cc", arguments)
        guard result.status == 0 else { throw TestSupportError("cc failed for \(name): \(result.stderr)") }
        chmod(output, 0o755)
        return output
    }

    /// A C string literal define: `stringDefine("FIXTURE_MAGIC", "ABCD")` → `FIXTURE_MAGIC="ABCD"`.
    public static func stringDefine(_ name: String, _ value: String) -> String { "\(name)=\"\(value)\"" }
}
