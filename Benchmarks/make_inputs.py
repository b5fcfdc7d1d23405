#!/usr/bin/env python3
"""Generates the benchmark inputs this project owns (no third-party files): a text-heavy PDF page and a
complex SVG (many paths, gradients, a blur filter). Usage: make_inputs.py OUTDIR"""
import math
import os
import random
import sys


def text_pdf(path):
    text_pdf_pages(path, 1, seed=7)


def text_pdf_pages(path, pages, seed):
    """A text-heavy PDF of `pages` A4 pages (60 lines of Helvetica each), written by hand."""
    random.seed(seed)
    words = ("image pipeline plugin coder loader cache thumbnail render vector raster alpha premultiplied "
             "resample lanczos sniff magic descriptor priority relevance decode encode").split()
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", None, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for page in range(pages):
        lines = []
        for i in range(60):
            text = " ".join(random.choice(words) for _ in range(11))
            lines.append("BT /F1 10 Tf 50 %d Td (%s) Tj ET" % (800 - i * 12.5, text))
        content = "\n".join(lines).encode()
        page_number = len(objects) + 1
        kids.append(b"%d 0 R" % page_number)
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> "
                       b"/Contents %d 0 R >>" % (page_number + 1))
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    objects[1] = b"<< /Type /Pages /Kids [" + b" ".join(kids) + b"] /Count %d >>" % pages
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    open(path, "wb").write(out)


def complex_svg(path):
    random.seed(11)
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900" viewBox="0 0 1200 900">',
             '<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#0a84ff"/>'
             '<stop offset="1" stop-color="#ff375f"/></linearGradient>'
             '<filter id="b"><feGaussianBlur stdDeviation="3"/></filter></defs>',
             '<rect width="1200" height="900" fill="url(#g)"/>']
    for i in range(400):
        cx, cy, r = random.uniform(0, 1200), random.uniform(0, 900), random.uniform(5, 60)
        points = " ".join("%.1f,%.1f" % (cx + r * math.cos(a * math.pi / 5), cy + r * math.sin(a * math.pi / 5) * (0.5 + (a % 2)))
                          for a in range(10))
        colour = "#%06x" % random.randrange(0x1000000)
        extra = ' filter="url(#b)"' if i % 40 == 0 else ""
        parts.append('<polygon points="%s" fill="%s" fill-opacity="0.7" stroke="#000" stroke-width="1"%s/>' % (points, colour, extra))
    parts.append("</svg>")
    open(path, "w").write("\n".join(parts))


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    text_pdf(os.path.join(out, "text-page.pdf"))
    complex_svg(os.path.join(out, "complex.svg"))
