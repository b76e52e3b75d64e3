"""EPUB 2 books (an NCX table of contents, an EPUB 2 cover meta) and the splitting of long
paragraphs into lines at sentence ends."""

from __future__ import annotations

import zipfile

from studio.scripts.books import MAX_LINE_CHARS, read_book, split_paragraph
from tests.epub_fixture import CONTAINER, page, png

OPF = """<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Old Book</dc:title>
<dc:creator>Someone</dc:creator><meta name="cover" content="img"/></metadata>
<manifest><item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
<item id="a" href="a%20b.html" media-type="application/xhtml+xml"/>
<item id="img" href="c.png" media-type="image/png"/></manifest>
<spine toc="ncx"><itemref idref="a"/></spine></package>"""
NCX = """<?xml version="1.0"?>
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><navMap>
<navPoint id="n1"><navLabel><text>Part  One</text></navLabel><content src="a%20b.html"/>
<navPoint id="n2"><navLabel><text>Later</text></navLabel><content src="a%20b.html#later"/>
</navPoint></navPoint></navMap></ncx>"""


def test_an_epub2_reads_its_ncx_chapters_title_author_and_cover(tmp_path):
    path = tmp_path / "old.epub"
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("mimetype", "application/epub+zip")
        book.writestr("META-INF/container.xml", CONTAINER)
        book.writestr("OEBPS/content.opf", OPF)
        book.writestr("OEBPS/toc.ncx", NCX)
        book.writestr("OEBPS/c.png", png())
        book.writestr("OEBPS/a b.html", page(
            "<p>First &amp; foremost.</p><script>no()</script><p>Second.</p>"
            '<p id="later">Later on, <i>much</i> later.</p>'))
    script, about = read_book(path)
    assert [line.text for line in script.lines] == ["First & foremost.", "Second.",
                                                    "Later on, much later."]
    assert [line.chapter for line in script.lines] == ["Part One", None, "Later"]
    assert about["title"] == "Old Book" and about["author"] == "Someone"
    assert about["cover"] == png() and about["cover_suffix"] == ".png"


def test_a_long_paragraph_is_split_at_sentence_ends():
    sentence = "This sentence is about sixty characters long, give or take. "
    pieces = split_paragraph(sentence * 20)
    assert all(len(p) <= MAX_LINE_CHARS for p in pieces)
    assert all(p.endswith("take.") for p in pieces)
    assert " ".join(pieces) == (sentence * 20).strip()
    one = "word " * 200  # no sentence end: cut at spaces
    assert all(len(p) <= MAX_LINE_CHARS for p in split_paragraph(one))
    assert " ".join(split_paragraph(one)) == one.strip()
