#!/usr/bin/env python3
"""Draws the MCP Canvas icon (a canvas window showing a chart) into icons/. Needs Pillow.

The PNGs are committed; run this only to change the design: python3 scripts/make-icons.py
"""
from pathlib import Path
from PIL import Image, ImageDraw

S = 1024  # master size; smaller icons are downsampled from it
out = Path(__file__).resolve().parent.parent / "icons"
out.mkdir(exist_ok=True)

img = Image.new("RGBA", (S, S), (0, 0, 0, 0))
# Background: a rounded square with a vertical indigo-to-teal gradient.
grad = Image.new("RGBA", (S, S))
gd = ImageDraw.Draw(grad)
for y in range(S):
    t = y / (S - 1)
    gd.line([(0, y), (S, y)], fill=(int(67 + (20 - 67) * t), int(56 + (160 - 56) * t), int(202 + (170 - 202) * t), 255))
mask = Image.new("L", (S, S), 0)
ImageDraw.Draw(mask).rounded_rectangle([40, 40, S - 40, S - 40], radius=220, fill=255)
img.paste(grad, (0, 0), mask)

d = ImageDraw.Draw(img)
# The canvas: a white sheet with a tab strip.
d.rounded_rectangle([190, 250, 834, 790], radius=48, fill=(255, 255, 255, 245))
d.rounded_rectangle([190, 190, 420, 290], radius=36, fill=(255, 255, 255, 245))
d.rounded_rectangle([440, 205, 640, 280], radius=30, fill=(255, 255, 255, 150))
# A bar chart on the sheet.
bars = [(260, 0.45, (66, 133, 244)), (390, 0.75, (52, 168, 83)), (520, 0.55, (251, 188, 5)), (650, 0.9, (234, 67, 53))]
base, top = 720, 330
for x, h, color in bars:
    d.rounded_rectangle([x, base - int((base - top) * h), x + 100, base], radius=18, fill=color + (255,))
d.rectangle([240, 722, 784, 734], fill=(60, 64, 80, 255))

# The hicolor sizes the .deb installs (tauri.conf.json bundle.icon), and the names Tauri expects.
SIZES = [(16, "16x16.png"), (32, "32x32.png"), (48, "48x48.png"), (64, "64x64.png"), (128, "128x128.png"),
         (256, "128x128@2x.png"), (256, "256x256.png"), (512, "icon.png")]
for size, name in SIZES:
    img.resize((size, size), Image.LANCZOS).save(out / name)
print("wrote", ", ".join(sorted(p.name for p in out.glob("*.png"))))
