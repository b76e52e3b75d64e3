"""Reading an EPUB (2 or 3) into a script: its spine's text in reading order, one chapter
per entry of its table of contents (the EPUB 3 nav document, or the EPUB 2 NCX).

Written on the standard library (zipfile, ElementTree, html.parser) rather than ebooklib:
reading needs a few dozen lines, and ebooklib is AGPL-licensed (this project is
Apache-2.0) and pulls lxml. Members are size-checked before they are read (a zip bomb is
refused with a sentence), and nothing in the book is executed or fetched.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag
from xml.etree import ElementTree

from studio.errors import UserError
from studio.safe_read import MB

MAX_MEMBER_BYTES = 64 * MB
MAX_BOOK_BYTES = 256 * MB  # all the text members together, uncompressed
_BLOCKS = {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "br", "tr",
           "section", "article", "dd", "dt", "pre", "figcaption", "td", "hr"}
_SKIPPED = {"script", "style", "head", "title", "svg", "math"}
_NS = {"c": "urn:oasis:names:tc:opendocument:xmlns:container",
       "opf": "http://www.idpf.org/2007/opf", "dc": "http://purl.org/dc/elements/1.1/",
       "ncx": "http://www.daisy.org/z3986/2005/ncx/", "x": "http://www.w3.org/1999/xhtml",
       "epub": "http://www.idpf.org/2007/ops"}


@dataclass
class Book:
    title: str
    author: str
    paragraphs: list[str]
    starts: dict[int, str]  # paragraph index -> the chapter title that opens there
    cover: bytes | None = None
    cover_suffix: str = ""


class _Text(HTMLParser):
    """Paragraphs of one XHTML document, and at which paragraph each id sits."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self.ids: dict[str, int] = {}
        self._words: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        tag = tag.lower().split(":")[-1]
        if tag in _SKIPPED:
            self._skip += 1
        if tag in _BLOCKS:
            self._flush()
        for name, value in attrs:
            if name == "id" and value:
                self.ids.setdefault(value, len(self.paragraphs))

    def handle_endtag(self, tag):
        tag = tag.lower().split(":")[-1]
        if tag in _SKIPPED and self._skip:
            self._skip -= 1
        if tag in _BLOCKS:
            self._flush()

    def handle_data(self, data):
        if not self._skip:
            self._words.append(data)

    def _flush(self):
        text = re.sub(r"\s+", " ", "".join(self._words)).strip()
        self._words = []
        if text:
            self.paragraphs.append(text)

    def close(self):
        super().close()
        self._flush()


def _member(book: zipfile.ZipFile, name: str, path: Path) -> bytes:
    try:
        info = book.getinfo(name)
    except KeyError:
        raise UserError(f"The EPUB {path} lists {name!r} but does not hold it; the book is "
                        "damaged.") from None
    if info.file_size > MAX_MEMBER_BYTES:
        raise UserError(f"The EPUB {path} holds {name!r} of {info.file_size // MB} MB; a "
                        f"book's page is at most {MAX_MEMBER_BYTES // MB} MB.")
    return book.read(info)


def _xml(data: bytes, name: str, path: Path) -> ElementTree.Element:
    try:
        return ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise UserError(f"The EPUB {path} has a damaged {name} ({exc}).") from None


def read_epub(path: Path, step=None) -> Book:
    """The book in ``path``; one sentence for a file that is not a readable EPUB.
    ``step(what, fraction)`` is called before each page (it may raise to cancel)."""
    path = Path(path)
    try:
        book = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UserError(f"The file {path} is not an EPUB (not a zip archive: {exc}).") from None
    with book:
        total = sum(i.file_size for i in book.infolist())
        if total > MAX_BOOK_BYTES:
            raise UserError(f"The EPUB {path} unpacks to {total // MB} MB; a book is at most "
                            f"{MAX_BOOK_BYTES // MB} MB.")
        container = _xml(_member(book, "META-INF/container.xml", path), "container", path)
        root = container.find(".//c:rootfile", _NS)
        if root is None or not root.get("full-path"):
            raise UserError(f"The EPUB {path} names no package document; the book is damaged.")
        opf_name = root.get("full-path")
        opf = _xml(_member(book, opf_name, path), "package document", path)
        base = posixpath.dirname(opf_name)
        items = {}
        for item in opf.iterfind(".//opf:manifest/opf:item", _NS):
            href = posixpath.normpath(posixpath.join(base, unquote(item.get("href", ""))))
            items[item.get("id")] = (href, item.get("media-type", ""),
                                     item.get("properties", ""))
        spine = [items[ref.get("idref")][0] for ref in opf.iterfind(".//opf:spine/opf:itemref",
                                                                    _NS)
                 if ref.get("idref") in items]
        if not spine:
            raise UserError(f"The EPUB {path} has no pages in its reading order (spine).")
        paragraphs, anchors = [], {}
        for n, name in enumerate(spine):
            if step is not None:
                step("Reading the book", n / len(spine))
            parser = _Text()
            parser.feed(_member(book, name, path).decode("utf-8", "replace"))
            parser.close()
            anchors[(name, "")] = len(paragraphs)
            for ident, at in parser.ids.items():
                anchors[(name, ident)] = len(paragraphs) + at
            paragraphs += parser.paragraphs
        toc = _toc(book, opf, items, path)
        starts: dict[int, str] = {}
        for title, target in toc:
            at = anchors.get(target, anchors.get((target[0], "")))
            if at is not None and at < len(paragraphs) and title:
                starts.setdefault(at, title)
        title = (opf.findtext(".//dc:title", "", _NS) or path.stem).strip()
        author = opf.findtext(".//dc:creator", "", _NS).strip()
        cover = _cover(book, opf, items, path)
    return Book(title, author, paragraphs, starts, *(cover or (None, "")))


def _toc(book, opf, items, path) -> list[tuple[str, tuple[str, str]]]:
    """(title, (document, fragment)) of each table-of-contents entry, in order."""
    nav = next((v for v in items.values() if "nav" in v[2].split()), None)
    if nav is not None:
        tree = _xml(_member(book, nav[0], path), "table of contents", path)
        navs = tree.iter(f"{{{_NS['x']}}}nav")
        toc = next((n for n in navs if n.get(f"{{{_NS['epub']}}}type") == "toc"), None)
        if toc is not None:
            return [(" ".join("".join(a.itertext()).split()), _target(nav[0], a.get("href")))
                    for a in toc.iter(f"{{{_NS['x']}}}a") if a.get("href")]
    ncx_id = opf.find(".//opf:spine", _NS).get("toc")
    ncx = items.get(ncx_id) or next((v for v in items.values()
                                     if v[1] == "application/x-dtbncx+xml"), None)
    if ncx is None:
        return []
    tree = _xml(_member(book, ncx[0], path), "table of contents", path)
    return [(" ".join(point.findtext("ncx:navLabel/ncx:text", "", _NS).split()),
             _target(ncx[0], point.find("ncx:content", _NS).get("src", "")))
            for point in tree.iter(f"{{{_NS['ncx']}}}navPoint")
            if point.find("ncx:content", _NS) is not None]


def _target(document: str, href: str) -> tuple[str, str]:
    href, fragment = urldefrag(href)
    name = posixpath.normpath(posixpath.join(posixpath.dirname(document), unquote(href))) \
        if href else document
    return name, fragment


def _cover(book, opf, items, path) -> tuple[bytes, str] | None:
    """The cover image's bytes and suffix (EPUB 3 property, or EPUB 2 meta), if a PNG/JPEG."""
    found = next((v for v in items.values() if "cover-image" in v[2].split()), None)
    if found is None:
        meta = opf.find(".//opf:metadata/opf:meta[@name='cover']", _NS)
        found = items.get(meta.get("content")) if meta is not None else None
    if found is None or found[1] not in ("image/png", "image/jpeg"):
        return None
    return _member(book, found[0], path), ".png" if found[1] == "image/png" else ".jpg"
