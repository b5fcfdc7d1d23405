import PipelineHost

/// Compact ways for plugin tests to say which status a call failed with.

extension Error {
    /// The plugin status behind a pipeline error, for `#expect`.
    public var pluginStatus: PluginStatus? { (self as? PipelineError)?.status }
}

/// The status `body` failed with, or nil when it succeeded. An error without a plugin status counts as
/// `.internalError`, so that no failure reads as success.
public func failureStatus(_ body: () throws -> Void) -> PluginStatus? {
    do {
        try body()
        return nil
    } catch let error as PipelineError {
        return error.status ?? .internalError
    } catch {
        return .internalError
    }
}

extension Image {
    /// Pixel (x, y) as [r, g, b, a] Ints at the image's own depth, for compact expectations.
    public func rgba(_ x: Int, _ y: Int) -> [Int] {
        let p = pixel(x: x, y: y)
        return [Int(p.r), Int(p.g), Int(p.b), Int(p.a)]
    }
}
