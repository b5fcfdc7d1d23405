"""The reference placeholder encoders, for PlaceholderPeerTests: reads straight RGBA8 pixels from a file and prints
woltapp's BlurHash (its C encoder, through blurhash-python's cffi module, on the RGB over white as imagepipe
hashes it) and the ThumbHash (thumbhash-python) of the same pixels, one per line.

Usage: placeholder_peers.py RGBA-FILE WIDTH HEIGHT BLURHASH-X BLURHASH-Y
"""
import base64
import sys

from blurhash._functions import ffi, lib
from thumbhash.encode import rgba_to_thumbhash


def main():
    path, width, height, bx, by = sys.argv[1], *map(int, sys.argv[2:6])
    rgba = open(path, "rb").read()
    if len(rgba) != width * height * 4:
        sys.exit(f"expected {width * height * 4} bytes, got {len(rgba)}")
    rgb = bytearray()
    for i in range(width * height):
        a = rgba[i * 4 + 3]
        for c in range(3):
            rgb.append((rgba[i * 4 + c] * a + 255 * (255 - a) + 127) // 255)
    pixels = ffi.new("uint8_t[]", bytes(rgb))
    destination = ffi.new("char[]", 2 + 4 + (9 * 9 - 1) * 2 + 1)
    result = lib.create_hash_from_pixels(bx, by, width, height, pixels, width * 3, destination)
    if result == ffi.NULL:
        sys.exit("blurhash: invalid components")
    print(ffi.string(result).decode())
    print(base64.b64encode(rgba_to_thumbhash(width, height, list(rgba))).decode())


main()
