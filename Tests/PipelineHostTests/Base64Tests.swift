import PipelineHost
import Testing

@Suite struct Base64Tests {
    @Test("RFC 4648's test vectors, padded; the URL-safe alphabet without padding")
    func vectors() {
        let cases = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (text, encoded) in cases { #expect(Base64.encode(Array(text.utf8)) == encoded, "'\(text)'") }
        #expect(Base64.encode([0xfb, 0xff, 0xbf]) == "+/+/")
        #expect(Base64.encode([0xfb, 0xff, 0xbf], urlSafe: true) == "-_-_")
        #expect(Base64.encode([0xfb, 0xff], urlSafe: true, padded: false) == "-_8")
    }
}
