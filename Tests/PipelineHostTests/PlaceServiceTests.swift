import PipelineHost
import PluginAPI
import Testing

/// `ip_host.place`, the one placement every plugin that renders at size asks the host for: its answers, and how it
/// reads and writes versioned structs (a request below the 1.0 size is refused; a caller's larger placement
/// struct keeps the fields this host does not know).
@Suite struct PlaceServiceTests {
    private func place(_ request: ip_place_request, placementSize: Int = MemoryLayout<ip_placement>.size)
        -> (status: Int32, placement: ip_placement, tail: [UInt8]) {
        var request = request
        // Room for the larger of the caller's declared size and this host's struct, plus 16 guard bytes.
        let known = MemoryLayout<ip_placement>.size
        let capacity = max(placementSize, known) + 16
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0xEE, count: capacity)
        buffer.storeBytes(of: UInt32(placementSize), as: UInt32.self)
        let status = HostServices.placeService(&request, buffer.assumingMemoryBound(to: ip_placement.self))
        let tail = Array(UnsafeRawBufferPointer(start: buffer + known, count: capacity - known))
        return (status, buffer.load(as: ip_placement.self), tail)
    }

    private func request(_ width: Double, _ height: Double, _ box: (UInt32, UInt32), _ mode: Int32, upscale: Bool = false) -> ip_place_request {
        ip_place_request(struct_size: UInt32(MemoryLayout<ip_place_request>.size), source_width: width, source_height: height,
                         box_width: box.0, box_height: box.1, mode: mode, flags: upscale ? UInt32(IP_PLACE_ALLOW_UPSCALE) : 0)
    }

    @Test("fit, fill, aspect-fill and one-sided boxes, as the host's own resampler places them")
    func answers() {
        let fill = place(request(400, 200, (100, 100), IP_SCALE_ASPECT_FILL))
        #expect(fill.status == IP_STATUS_OK)
        // 400x200 into 100x100: scale 0.5, drawn 200 wide, centred → offset -50.
        #expect(fill.placement.out_width == 100 && fill.placement.out_height == 100)
        #expect(fill.placement.scale_x == 0.5 && fill.placement.offset_x == -50 && fill.placement.offset_y == 0)
        let oneSide = place(request(400, 200, (0, 50), IP_SCALE_FIT))
        #expect(oneSide.placement.out_width == 100 && oneSide.placement.out_height == 50)
        let noUpscale = place(request(40, 20, (100, 100), IP_SCALE_FIT))
        #expect(noUpscale.placement.out_width == 40 && noUpscale.placement.out_height == 20)
        let upscale = place(request(40, 20, (100, 100), IP_SCALE_FIT, upscale: true))
        #expect(upscale.placement.out_width == 100 && upscale.placement.out_height == 50)
        let stretched = place(request(40, 20, (100, 100), IP_SCALE_FILL))
        #expect(stretched.placement.out_width == 100 && stretched.placement.scale_y == 5)
        for answer in [fill, oneSide, noUpscale, upscale, stretched] {
            #expect(answer.placement.struct_size == UInt32(MemoryLayout<ip_placement>.size))
        }
    }

    @Test("versioned structs: a short request is refused, a longer placement keeps its unknown tail")
    func versionedStructs() {
        var short = request(400, 200, (100, 100), IP_SCALE_FIT)
        short.struct_size = 8
        #expect(place(short).status == IP_STATUS_INVALID_DATA)
        let newer = place(request(400, 200, (100, 100), IP_SCALE_FIT), placementSize: MemoryLayout<ip_placement>.size + 32)
        #expect(newer.status == IP_STATUS_OK && newer.placement.out_width == 100)
        #expect(newer.placement.struct_size == UInt32(MemoryLayout<ip_placement>.size + 32), "the caller's struct_size stays")
        #expect(newer.tail.allSatisfy { $0 == 0xEE }, "fields this host does not know are left alone")
        #expect(place(request(400, 200, (100, 100), IP_SCALE_FIT), placementSize: 8).status == IP_STATUS_INVALID_DATA)
    }
}
