"""Hostile inputs made cheaply: gzip bombs (GiBs that compress to MBs) and files whose lines
never end, written as they are compressed so that making one costs no memory."""

from __future__ import annotations

import gzip
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

PIECE = 1 << 20


def repeated(unit: bytes, size: int) -> Iterator[bytes]:
    """``size`` bytes of ``unit`` repeated, in pieces of about 1 MiB."""
    piece = unit * max(1, PIECE // len(unit))
    left = size
    while left > 0:
        yield piece[:left]
        left -= len(piece)


def write_gzip(path: Path, pieces: Iterable[bytes], level: int = 6) -> Path:
    """A gzip file of the pieces, one after the other, compressed as they come."""
    path.parent.mkdir(parents=True, exist_ok=True)
    packer = zlib.compressobj(level, zlib.DEFLATED, 31)
    with open(path, "wb") as out:
        for piece in pieces:
            out.write(packer.compress(piece))
        out.write(packer.flush())
    return path


def zeros_bomb(path: Path, size: int) -> Path:
    """``size`` bytes of zeros without a line break (1 GiB is about 1 MB compressed)."""
    return write_gzip(path, repeated(b"\0", size), level=9)


# -- archives ------------------------------------------------------------------------------

BLOCK = 512  # a tar block


def write_gzip_members(path: Path, parts: Iterable[tuple[bytes, int]]) -> Path:
    """A gzip file of members one after the other (gzip readers join them): each (piece,
    count) is compressed once and written ``count`` times, so that a GiB of one byte
    costs the compression of a MiB (and is about 1 MB on disk)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        for piece, count in parts:
            member = gzip.compress(piece, compresslevel=9, mtime=0)
            for _ in range(count):
                out.write(member)
    return path


def tar_header(name: str, size: int, kind: bytes = tarfile.REGTYPE) -> bytes:
    """One tar header block declaring ``size`` bytes of type ``kind``, as GNU tar writes
    it (the bytes themselves are not written)."""
    info = tarfile.TarInfo(name)
    info.size, info.type = size, kind
    return info.tobuf(tarfile.GNU_FORMAT)


def tar_file(name: str, data: bytes) -> bytes:
    """A plain file entry: its header and its data padded to whole blocks."""
    return tar_header(name, len(data)) + data + bytes(-len(data) % BLOCK)


TAR_END = bytes(2 * BLOCK)


def declared_header_tar(path: Path, kind: bytes, size: int,
                        then: str = "top/CodeBook.csv") -> Path:
    """A .tar.gz whose first header, of type ``kind`` (``L``: a GNU long name, ``x`` or
    ``g``: a pax header), declares ``size`` bytes, which follow (the letter a), then a
    small file ``then``: a 1.5 GiB header is about 1.5 MB."""
    whole, rest = divmod(size, PIECE)
    tail = b"a" * rest + bytes(-size % BLOCK) + tar_file(then, b"x\n") + TAR_END
    return write_gzip_members(path, [(tar_header("././@LongLink", size, kind), 1),
                                     (b"a" * PIECE, whole), (tail, 1)])


def chained_headers_tar(path: Path, count: int, kind: bytes = tarfile.XHDTYPE) -> Path:
    """A .tar of ``count`` empty extended headers in a row before one small file."""
    path.write_bytes(tar_header("././@PaxHeader", 0, kind) * count
                     + tar_file("top/CodeBook.csv", b"x\n") + TAR_END)
    return path


def sparse_map_tar(path: Path, numbers: int) -> Path:
    """A .tar.gz of one file in GNU's pax sparse format 1.0, whose map (which follows its
    header, as the start of its data) claims a billion regions and lists ``numbers``
    numbers."""
    info = tarfile.TarInfo("top/CodeBook.csv")
    info.pax_headers = {"GNU.sparse.major": "1", "GNU.sparse.minor": "0",
                        "GNU.sparse.name": "top/CodeBook.csv", "GNU.sparse.realsize": "2"}
    headers = info.tobuf(tarfile.PAX_FORMAT)  # the pax header, then the entry's own
    return write_gzip_members(path, [(headers + b"1000000000\n", 1),
                                     (b"1\n" * (PIECE // 2), numbers // (PIECE // 2))])


def encrypted_zip(path: Path, names: list[str]) -> Path:
    """A .zip whose entries are marked encrypted (bit 0 of their flags, in the local and
    the central headers), as a zip saved with a password is."""
    with zipfile.ZipFile(path, "w") as zf:
        for name in names:
            zf.writestr(name, "x\n")
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            data[info.header_offset + 6] |= 1
    central = data.find(b"PK\x01\x02")
    while data[central:central + 4] == b"PK\x01\x02":
        data[central + 8] |= 1
        name_len, extra_len, comment_len = struct.unpack("<HHH", data[central + 28:central + 34])
        central += 46 + name_len + extra_len + comment_len
    path.write_bytes(bytes(data))
    return path


# -- workbooks -----------------------------------------------------------------------------

BACKGROUND_TABLE = [["Roles", "Gender", "Experience Years for LLMs", "Responsibilities"],
                    ["LLM User-Software Engineer", "Male", "4 years", "Builds tools."],
                    ["DL framework Developer-Release Manager", "Male", "9 years", "Validates."]]
SHEET_PART = "xl/worksheets/sheet1.xml"
STRINGS_PART = "xl/sharedStrings.xml"
TYPES_PART = "[Content_Types].xml"
STRINGS_TYPE = ('<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
                'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>')
SHEET_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def table_workbook(path: Path, rows: list[list[object]] = BACKGROUND_TABLE,
                   far_cell: str | None = None) -> Path:
    """A workbook of one worksheet holding ``rows`` from A1 (a background sheet by
    default), and a value at ``far_cell`` (``XFD1048576``) when given."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sheet1"
    for row in rows:
        sheet.append(row)
    if far_cell:
        sheet[far_cell] = "stray"
    path.parent.mkdir(parents=True, exist_ok=True)
    book.save(path)
    return path


def rewrite_part(book: Path, part: str, pieces: Iterable[bytes]) -> Path:
    """Replace (or add) the entry ``part`` of the zip ``book`` by ``pieces``, compressed
    as they come (its declared size is what they add up to)."""
    with zipfile.ZipFile(book) as src:
        others = [(info, src.read(info)) for info in src.infolist() if info.filename != part]
    with zipfile.ZipFile(book, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for info, data in others:
            dst.writestr(info, data)
        with dst.open(part, "w", force_zip64=True) as out:
            for piece in pieces:
                out.write(piece)
    return book


def part_text(book: Path, part: str) -> str:
    with zipfile.ZipFile(book) as archive:
        return archive.read(part).decode("utf-8")


def records(record: bytes, count: int) -> Iterator[bytes]:
    """``count`` copies of ``record``, in pieces of about 1 MiB."""
    per_piece = max(1, PIECE // len(record))
    while count > 0:
        yield record * min(per_piece, count)
        count -= per_piece


def merged_past_workbook(path: Path, ref: str) -> Path:
    """A background sheet whose worksheet also merges ``ref`` (``A200:XFD1048576``: a
    range of 17 billion cells in a workbook of 8 KB)."""
    book = table_workbook(path)
    merge = f'</sheetData><mergeCells count="1"><mergeCell ref="{ref}"/></mergeCells>'
    return rewrite_part(book, SHEET_PART,
                        [part_text(book, SHEET_PART).replace("</sheetData>", merge).encode()])


def strings_bomb_workbook(path: Path, size: int) -> Path:
    """A background sheet with a table of shared strings that unpacks to about ``size``
    bytes of short strings (600 MB is about 600 KB compressed); openpyxl writes its
    strings inline, so the table is added with its content type."""
    book = table_workbook(path)
    types = part_text(book, TYPES_PART).replace("</Types>", f"{STRINGS_TYPE}</Types>")
    rewrite_part(book, TYPES_PART, [types.encode()])
    record = b"<si><t>" + b"a" * 100 + b"</t></si>"
    return rewrite_part(book, STRINGS_PART, [f'<sst xmlns="{SHEET_NS}">'.encode(),
                                             *records(record, size // len(record)),
                                             b"</sst>"])


def wide_row_workbook(path: Path, cells: int) -> Path:
    """A background sheet with one more row holding ``cells`` empty cells (15 bytes each,
    a few KB a million compressed)."""
    book = table_workbook(path)
    head, tail = part_text(book, SHEET_PART).split("</sheetData>", 1)
    return rewrite_part(book, SHEET_PART, [head.encode(), b'<row r="10">',
                                           *records(b'<c r="B10" s="0"/>', cells),
                                           f"</row></sheetData>{tail}".encode()])


def chart_only_workbook(path: Path) -> Path:
    """A workbook whose only sheet is a chart sheet (no worksheet)."""
    import openpyxl

    book = openpyxl.Workbook()
    book.create_chartsheet("Chart1")
    book.remove(book.active)
    book.save(path)
    return path


def encrypted_workbook(path: Path) -> Path:
    """An .xlsx as Excel saves it with a password (MS-OFFCRYPTO): not a zip but an OLE2
    compound file (version 3, 512-byte sectors) holding the streams ``EncryptionInfo``
    and ``EncryptedPackage`` (4 KiB of filler each, so both fill whole sectors)."""
    free, end, fat_sector, none = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF
    sectors = 4096 // 512  # per stream
    info_start, package_start = 2, 2 + sectors  # sector 0: the FAT, 1: the directory

    def chain(start: int) -> list[int]:
        return [*range(start + 1, start + sectors), end]

    fat = [fat_sector, end, *chain(info_start), *chain(package_start)]
    fat += [free] * (128 - len(fat))
    header = struct.pack("<8s16sHHHHH6sIIIIIIIII109I", bytes.fromhex("d0cf11e0a1b11ae1"),
                         bytes(16), 0x3E, 3, 0xFFFE, 9, 6, bytes(6), 0, 1, 1, 0, 4096, end,
                         0, end, 0, 0, *[free] * 108)

    def entry(name: str, kind: int, left: int, right: int, child: int, start: int,
              size: int) -> bytes:
        encoded = name.encode("utf-16-le") + b"\0\0" if name else b""
        return struct.pack("<64sHBBIII16sIQQIQ", encoded, len(encoded), kind, 1, left, right,
                           child, bytes(16), 0, 0, 0, start, size)

    directory = (entry("Root Entry", 5, none, none, 1, end, 0)
                 + entry("EncryptionInfo", 2, none, 2, none, info_start, 4096)
                 + entry("EncryptedPackage", 2, none, none, none, package_start, 4096)
                 + entry("", 0, none, none, none, 0, 0))
    path.write_bytes(header + struct.pack("<128I", *fat) + directory + bytes(2 * 4096))
    return path
