#!/usr/bin/env python3
"""Generates the batch benchmark's inputs (all made here, no third-party files), once per folder:

  mixed/   205 files of every format: 10 JPEG photos of 12 MP, and JPEG, PNG, WebP, AVIF, HEIC, GIF, SVG and PDF
           files of 0.5 to 3 MP, each a different crop of one generated photo-like picture
  icons/   500 SVG icons (paths, strokes, gradients; 1-3 KB each, like an icon set)
  tiny/    500 trivial SVGs of 16 units (per-item overhead)
  book.pdf a 200-page text document

Usage: make_batch_inputs.py OUTDIR (skips what exists)."""
import math
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_inputs import text_pdf_pages  # noqa: E402


def run(command):
    subprocess.check_call(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def icon_svg(seed):
    random.seed(seed)
    hue = lambda: "#%06x" % random.randrange(0x1000000)
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24">',
             '<defs><linearGradient id="g%d" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="%s"/>'
             '<stop offset="1" stop-color="%s"/></linearGradient></defs>' % (seed, hue(), hue()),
             '<rect x="1" y="1" width="22" height="22" rx="5" fill="url(#g%d)"/>' % seed]
    for _ in range(random.randint(3, 8)):
        points = []
        for _ in range(random.randint(3, 7)):
            points.append("%.2f %.2f" % (random.uniform(3, 21), random.uniform(3, 21)))
        c = " ".join("Q %.2f %.2f %s" % (random.uniform(2, 22), random.uniform(2, 22), p) for p in points[1:])
        parts.append('<path d="M %s %s Z" fill="none" stroke="%s" stroke-width="%.1f" stroke-linecap="round"/>'
                     % (points[0], c, hue(), random.uniform(0.8, 2.2)))
    parts.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="currentColor" opacity="0.8"/>'
                 % (random.uniform(6, 18), random.uniform(6, 18), random.uniform(1.5, 4)))
    parts.append("</svg>")
    return "\n".join(parts)


def mixed(folder, work):
    os.makedirs(folder, exist_ok=True)
    base = os.path.join(work, "base-4000.png")
    if not os.path.exists(base):
        run(["convert", "-size", "4000x3000", "-seed", "5", "plasma:fractal", "-blur", "0x1",
             "(", "-size", "4000x3000", "xc:", "+noise", "Gaussian", "-colorspace", "gray", ")",
             "-compose", "overlay", "-composite", base])
    ppm = os.path.join(work, "base-4000.ppm")
    if not os.path.exists(ppm):
        run(["convert", base, ppm])
    for i in range(10):
        out = os.path.join(folder, "photo12mp-%02d.jpg" % i)
        if not os.path.exists(out):
            run(["sh", "-c", "cjpeg -quality %d %s > %s" % (80 + i, ppm, out)])
    random.seed(1)
    plan = [("jpg", 60, (2000, 1500)), ("png", 30, (1000, 750)), ("webp", 30, (1600, 1200)), ("avif", 20, (1600, 1200)),
            ("heic", 20, (1600, 1200)), ("gif", 10, (800, 600))]
    for ext, count, (w, h) in plan:
        for i in range(count):
            out = os.path.join(folder, "%s-%02d.%s" % (ext, i, ext))
            if os.path.exists(out):
                continue
            x, y = random.randrange(0, 4000 - w), random.randrange(0, 3000 - h)
            crop = os.path.join(work, "crop.png")
            run(["convert", ppm, "-crop", "%dx%d+%d+%d" % (w, h, x, y), "+repage", crop])
            if ext == "avif":
                run(["avifenc", "-s", "8", "-j", "2", crop, out])
            elif ext == "heic":
                run(["heif-enc", "-q", "75", crop, "-o", out])
            elif ext == "webp":
                run(["cwebp", "-q", "80", crop, "-o", out])
            else:
                run(["convert", crop, out])
    for i in range(15):
        out = os.path.join(folder, "svg-%02d.svg" % i)
        if not os.path.exists(out):
            open(out, "w").write(icon_svg(1000 + i))
    for i in range(10):
        out = os.path.join(folder, "pdf-%02d.pdf" % i)
        if not os.path.exists(out):
            text_pdf_pages(out, 1, seed=100 + i)


def main():
    out = sys.argv[1]
    work = os.path.join(out, "work")
    os.makedirs(work, exist_ok=True)
    mixed(os.path.join(out, "mixed"), work)
    for folder, count, make in (("icons", 500, lambda i: icon_svg(i)),
                                ("tiny", 500, lambda i: '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16">'
                                                        '<rect x="%d" y="2" width="8" height="8" fill="#c00"/></svg>' % (i % 8))):
        path = os.path.join(out, folder)
        os.makedirs(path, exist_ok=True)
        for i in range(count):
            name = os.path.join(path, "%s-%03d.svg" % (folder, i))
            if not os.path.exists(name):
                open(name, "w").write(make(i))
    book = os.path.join(out, "book.pdf")
    if not os.path.exists(book):
        text_pdf_pages(book, 200, seed=7)


if __name__ == "__main__":
    main()
