#if canImport(Glibc)
import Glibc
#endif

/// The dlopen mode every plugin file is loaded with, by the host, its workers and the plugin tester alike.
///
/// RTLD_LOCAL keeps plugins from seeing each other's symbols and RTLD_NODELETE keeps a Swift plugin mapped (see
/// PluginLibrary). RTLD_DEEPBIND is for speed: without it each symbol of a plugin's dependency tree (librsvg and its
/// forty libraries bind about 12,000) is first looked for in the host's own global scope, the Swift runtime and
/// Foundation, where none of them is, and only then in the plugin's own libraries. Searching the plugin's libraries
/// first saves about 1 ms of a one-shot SVG render (info badge.svg 22.0 -> 20.3 ms, medians of 80 alternated runs). Nothing the host gives plugins
/// travels by symbol (services come as tables), so the order changes no binding a plugin relies on; a symbol that
/// both the host and a plugin's library define now resolves, for that plugin, to its own library's copy, as it would
/// in a program linked against that library alone.
///
/// AddressSanitizer refuses RTLD_DEEPBIND (its interceptors must win every lookup), so a sanitized process, which
/// is where a plugin author runs an instrumented plugin, gets the plain search order.
public enum PluginLinking {
    public static func mode(bindNow: Bool) -> Int32 {
        (bindNow ? RTLD_NOW : RTLD_LAZY) | RTLD_LOCAL | RTLD_NODELETE | (deepBinding ? RTLD_DEEPBIND : 0)
    }

    /// False in a process with a sanitizer runtime (ASan, or one of the runtimes that share its interceptors).
    static let deepBinding: Bool = {
        for symbol in ["__asan_init", "__tsan_init", "__msan_init", "__hwasan_init"] where dlsym(nil /* RTLD_DEFAULT */, symbol) != nil {
            return false
        }
        return true
    }()
}
