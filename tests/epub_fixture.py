"""A small EPUB 3 written in the test (zipfile): chapters in a nav table of contents,
one of them starting at an anchor in the middle of a page, and a PNG cover."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="OEBPS/content.opf"
 media-type="application/oebps-package+xml"/></rootfiles></container>"""


def png(width: int = 40, height: int = 30, rgb=(230, 120, 20)) -> bytes:
    """A plain-colour PNG made here (no image tool needed)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                                 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def page(body: str) -> str:
    return ('<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
            f"<head><title>x</title><style>p {{}}</style></head><body>{body}</body></html>")


def write_epub(path: Path, chapters: list[tuple[str, list[str]]], *, title="A Test Book",
               author="Ada Author", cover: bytes | None = None) -> Path:
    """Chapters 1 and 2 share the first page (2 starts at an anchor); the rest have a page
    each."""
    pages: dict[str, list[str]] = {}
    links = []
    for n, (name, paragraphs) in enumerate(chapters):
        doc = "text/p1.xhtml" if n < 2 else f"text/p{n}.xhtml"
        body = f'<h1 id="c{n}">{name}</h1>' + "".join(f"<p>{p}</p>" for p in paragraphs)
        pages.setdefault(doc, []).append(body)
        links.append(f'<li><a href="{doc}#c{n}">{name}</a></li>')
    manifest = "".join(f'<item id="p{n}" href="{doc}" media-type="application/xhtml+xml"/>'
                       for n, doc in enumerate(pages))
    spine = "".join(f'<itemref idref="p{n}"/>' for n in range(len(pages)))
    if cover is not None:
        manifest += ('<item id="cover" href="cover.png" media-type="image/png" '
                     'properties="cover-image"/>')
    opf = f"""<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">x</dc:identifier>
<dc:title>{title}</dc:title><dc:creator>{author}</dc:creator><dc:language>en</dc:language>
</metadata><manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml"
 properties="nav"/>{manifest}</manifest><spine>{spine}</spine></package>"""
    nav = page('<nav xmlns:epub="http://www.idpf.org/2007/ops" epub:type="toc"><ol>'
               + "".join(links) + "</ol></nav>")
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("mimetype", "application/epub+zip", zipfile.ZIP_STORED)
        book.writestr("META-INF/container.xml", CONTAINER)
        book.writestr("OEBPS/content.opf", opf)
        book.writestr("OEBPS/nav.xhtml", nav)
        for doc, bodies in pages.items():
            book.writestr(f"OEBPS/{doc}", page("".join(bodies)))
        if cover is not None:
            book.writestr("OEBPS/cover.png", cover)
    return path
