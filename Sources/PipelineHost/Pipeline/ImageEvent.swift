/// What a request reports while it runs (`ImageManager.events(for:)`).
public enum ImageEvent: Sendable {
    /// Bytes received so far and the expected total (nil when unknown). Monotonic; the last equals the total.
    case progress(received: Int, expected: Int?)
    /// A partial image decoded from the bytes so far (progressive formats only). Never cached.
    case preview(Image)
    /// The final image. The last event of a successful request.
    case image(Image)
}
