# ruff: noqa
# mypy: ignore-errors
# A one-off data script: build() is kept verbatim as it was run to build models/data/photos
# (needs scikit-image 0.26.0, not a dependency of dixit-ai).
"""Builds models/data/photos (run once; the files are committed).

Writes the photographs of scikit-image's bundled sample data and a few illustrations drawn with
Pillow, downscaled to at most 384 px, and their captions (``index.json``) into ``--out``, an
existing folder (by default ``models/data/photos``: run it from the repository root). Needs
scikit-image 0.26.0 (``pip install scikit-image==0.26.0``), which dixit-ai does not depend on.

    python scripts/make_photo_set.py
    python scripts/make_photo_set.py --out /tmp/photos
"""
import argparse
import json
import sys
from pathlib import Path

OUT = "models/data/photos"
"""Where the set is committed, relative to the repository root."""
SKIMAGE_HINT = "pip install scikit-image==0.26.0"


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description="\n\n".join(__doc__.split("\n\n")[:2]),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=OUT,
                        help="existing folder to write the images and index.json into "
                             f"(default: {OUT}, relative to the current folder)")
    return parser.parse_args(argv)


def main(argv=None):
    """Build the set into ``--out``; the exit status (2, nothing written: a missing folder or
    scikit-image not installed)."""
    args = parse_args(argv)
    out = Path(args.out)
    if not out.is_dir():
        what = "is a file, not a folder" if out.exists() else "does not exist"
        print(f"error: --out {out} {what}: give an existing folder (the default, {OUT}, is "
              "relative to the current folder: run from the repository root)", file=sys.stderr)
        return 2
    try:
        import skimage.data as d
    except ImportError as error:
        print(f"error: scripts/make_photo_set.py needs scikit-image, which is not installed "
              f"({error}); install it with: {SKIMAGE_HINT}", file=sys.stderr)
        return 2
    build(out, d)
    return 0


def build(out, d):
    """Write the set into the folder ``out`` from ``skimage.data`` (``d``)."""
    import numpy as np
    from PIL import Image, ImageDraw

    entries = []
    SK = "scikit-image 0.26.0 (skimage.data)"
    def save(img, name, category, kind, caption, source, licence):
        img = img.convert("RGB"); img.thumbnail((384, 384))
        img.save(out / name, quality=88)
        entries.append(dict(file=name, category=category, kind=kind, caption=caption, source=source, license=licence))

    photos = [
     ("chelsea", "cat.jpg", "animal", "a tabby cat sitting and looking to the side", "skimage.data.chelsea: photograph by Stefan van der Walt", "CC0"),
     ("coffee", "coffee.jpg", "food and drink", "a cup of espresso coffee on a saucer with a spoon", "skimage.data.coffee: photograph by Rachel Michetti, courtesy of Pikolo Espresso Bar", "CC0"),
     ("astronaut", "astronaut.jpg", "people", "a portrait of an astronaut in an orange space suit with a flag", "skimage.data.astronaut: NASA photograph of Eileen Collins", "public domain"),
     ("rocket", "rocket.jpg", "space", "a rocket launching from its pad with fire and smoke", "skimage.data.rocket: SpaceX launch photo of Falcon 9 / DSCOVR", "public domain (released by SpaceX)"),
     ("hubble_deep_field", "galaxies.jpg", "space", "many distant galaxies in the dark of deep space", "skimage.data.hubble_deep_field: NASA Hubble Space Telescope", "public domain (NASA)"),
     ("camera", "cameraman.jpg", "people", "a black and white photo of a man with a camera on a tripod", "skimage.data.camera: photograph by Lav Varshney", "CC0"),
     ("coins", "coins.jpg", "objects", "old coins lying on a table", "skimage.data.coins: Greek coins from Pompeii (Brooklyn Museum)", "no known copyright restrictions"),
     ("brick", "brick.jpg", "textures", "a brick wall", "skimage.data.brick: CC0Textures Bricks25", "CC0"),
     ("grass", "grass.jpg", "textures", "green grass in a meadow", "skimage.data.grass: CC0Textures", "CC0"),
     ("gravel", "gravel.jpg", "textures", "a path of small grey stones and gravel", "skimage.data.gravel: CC0Textures Gravel04", "CC0"),
     ("retina", "retina.jpg", "science", "a medical photograph of the back of a human eye", "skimage.data.retina: Wikimedia Commons, Fundus photograph of normal left eye", "CC0"),
     ("clock", "clock.jpg", "objects", "a blurred photo of a wall clock", "skimage.data.clock: photograph by Stefan van der Walt", "public domain"),
    ]
    for fn, name, cat, cap, src, lic in photos:
        a = getattr(d, fn)()
        if a.dtype != np.uint8:
            a = (255 * (a - a.min()) / max(1e-9, a.max() - a.min())).astype(np.uint8)
        save(Image.fromarray(a), name, cat, "photograph", cap, src, lic)
    a = d.horse()
    save(Image.fromarray(np.where(a, 255, 0).astype(np.uint8)), "horse.png", "animal", "illustration",
         "the black silhouette of a galloping horse", "skimage.data.horse: drawing by Andreas Preuss (marauder)", "CC0")

    # Illustrations drawn here (dixit-ai, MIT).
    def canvas(bg):
        return Image.new("RGB", (320, 320), bg)
    drawn = []
    im = canvas((135, 200, 250)); g = ImageDraw.Draw(im)
    g.rectangle([0, 220, 320, 320], fill=(40, 150, 60)); g.ellipse([40, 30, 120, 110], fill=(255, 220, 0))
    drawn.append((im, "sunny_field.png", "landscape", "a yellow sun in a blue sky over a green field"))
    im = canvas((250, 250, 245)); g = ImageDraw.Draw(im)
    g.rectangle([90, 150, 230, 270], fill=(200, 60, 40)); g.polygon([(70, 150), (160, 70), (250, 150)], fill=(120, 60, 30))
    g.rectangle([145, 210, 175, 270], fill=(90, 50, 20)); g.rectangle([105, 170, 135, 195], fill=(170, 220, 255))
    drawn.append((im, "house.png", "buildings", "a drawing of a small house with a red wall and a brown roof"))
    im = canvas((20, 30, 80)); g = ImageDraw.Draw(im)
    rng = np.random.default_rng(0)
    for x, y in rng.integers(0, 320, size=(60, 2)):
        g.ellipse([x - 2, y - 2, x + 2, y + 2], fill=(255, 255, 230))
    g.ellipse([200, 40, 270, 110], fill=(240, 240, 210)); g.ellipse([220, 35, 290, 105], fill=(20, 30, 80))
    drawn.append((im, "night_sky.png", "landscape", "a crescent moon and stars in the night sky"))
    im = canvas((120, 180, 230)); g = ImageDraw.Draw(im)
    g.rectangle([0, 230, 320, 320], fill=(20, 70, 150)); g.polygon([(90, 230), (230, 230), (210, 260), (110, 260)], fill=(110, 60, 30))
    g.line([(160, 230), (160, 90)], fill=(60, 40, 20), width=5); g.polygon([(165, 95), (165, 220), (240, 220)], fill=(255, 255, 255))
    drawn.append((im, "sailboat.png", "vehicles", "a sailing boat with a white sail on the water"))
    im = canvas((240, 250, 255)); g = ImageDraw.Draw(im)
    g.rectangle([145, 200, 175, 300], fill=(110, 70, 30)); g.ellipse([80, 60, 240, 220], fill=(30, 140, 50))
    drawn.append((im, "tree.png", "plants", "a drawing of a green tree with a brown trunk"))
    im = canvas((255, 255, 255)); g = ImageDraw.Draw(im)
    g.ellipse([90, 100, 230, 260], fill=(210, 20, 30)); g.rectangle([155, 60, 165, 105], fill=(90, 60, 20))
    g.ellipse([165, 55, 215, 85], fill=(60, 160, 40))
    drawn.append((im, "apple.png", "food and drink", "a red apple with a green leaf"))
    im = canvas((255, 255, 255)); g = ImageDraw.Draw(im)
    g.rectangle([50, 150, 270, 220], fill=(220, 30, 30)); g.polygon([(100, 150), (130, 100), (210, 100), (240, 150)], fill=(220, 30, 30))
    g.rectangle([135, 108, 200, 145], fill=(180, 220, 255)); g.ellipse([75, 195, 135, 255], fill=(30, 30, 30)); g.ellipse([190, 195, 250, 255], fill=(30, 30, 30))
    drawn.append((im, "car.png", "vehicles", "a drawing of a red car with black wheels"))
    im = canvas((200, 230, 255)); g = ImageDraw.Draw(im)
    g.ellipse([110, 180, 210, 280], fill=(255, 255, 255), outline=(150, 150, 150)); g.ellipse([125, 110, 195, 180], fill=(255, 255, 255), outline=(150, 150, 150))
    g.ellipse([140, 130, 150, 140], fill=(0, 0, 0)); g.ellipse([170, 130, 180, 140], fill=(0, 0, 0)); g.polygon([(158, 145), (158, 155), (185, 150)], fill=(255, 140, 0))
    g.rectangle([0, 270, 320, 320], fill=(250, 250, 255))
    drawn.append((im, "snowman.png", "winter", "a snowman in the snow with a carrot nose"))
    for im, name, cat, cap in drawn:
        save(im, name, cat, "illustration", cap, "drawn for dixit-ai with Pillow (scripts/make_photo_set.py)", "MIT (dixit-ai)")
    doc = {"format": 1, "description": "A small set of public-domain/CC0 photographs (from scikit-image's bundled sample data) and simple illustrations, each with a caption written for dixit-ai, to check that the default embedder ranks ordinary images sensibly (caption-to-image retrieval among them). Images downscaled to at most 384 px.", "images": entries}
    (out / "index.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n",
                                    encoding="utf-8")
    print(len(entries))


if __name__ == "__main__":
    raise SystemExit(main())
