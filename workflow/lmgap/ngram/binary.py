"""A KenLM binary's header, as lm/binary_format.cc writes it, held to what its training asked for: a build_binary
that exits 0 after writing a model of another order, structure or size would otherwise have its model scored
under the asked-for name (or fail every query of it, the training's fix retraining it the same way)."""

import struct
from pathlib import Path

from ..errors import LmgapError
from .formats import PROBING, parse_format

MAGIC = b"mmap lm http://kheafield.com/code format version 5\n\0\0"
INCOMPLETE = b"mmap lm http://kheafield.com/code incomplete\n"
# struct Sanity: the magic padded to 8 bytes, then the test values 0.0, 1.0, -0.5 (floats), 1, the largest
# WordIndex and a padding 0 (uint32), and 1 (uint64); little-endian, as every machine KenLM builds on is.
SANITY = MAGIC.ljust(-(-len(MAGIC) // 8) * 8, b"\0") + struct.pack("<fffIIIQ", 0.0, 1.0, -0.5, 1, 2**32 - 1, 0, 1)
# struct FixedWidthParameters: order (uint8), probing multiplier (float), model type (enum), whether the words'
# strings end the file (bool), search version (uint32); then a uint64 count per order.
FIXED = struct.Struct("<BxxxfI?xxxI")
# KenLM's ModelType (lm/model_type.hh).
MODEL_TYPES = {
    0: "probing hash tables",
    1: "probing hash tables with rest costs",
    2: "trie",
    3: "trie with quantisation",
    4: "trie with array-compressed pointers",
    5: "trie with quantisation and array-compressed pointers",
}


def model_type(fmt):
    """KenLM's ModelType code of a Format's binaries."""
    if fmt.structure == PROBING:
        return 0
    return 2 + fmt.quantised + 2 * (fmt.pointer_bits is not None)


def read_header(path):
    """{order, multiplier, model_type, vocabulary, counts, header_bytes} of a KenLM binary; an LmgapError where
    the file is none (or one whose build never finished)."""
    with open(path, "rb") as handle:
        head = handle.read(len(SANITY) + FIXED.size)
        if head.startswith(INCOMPLETE):
            raise LmgapError(f"{path} is a KenLM binary whose build never finished (build_binary stopped mid-file)")
        if len(head) < len(SANITY) + FIXED.size or head[: len(SANITY)] != SANITY:
            raise LmgapError(f"{path} does not start as a KenLM binary of format version 5 does")
        order, multiplier, code, vocabulary, _ = FIXED.unpack_from(head, len(SANITY))
        counts = list(struct.unpack(f"<{order}Q", handle.read(8 * order).ljust(8 * order, b"\0")))
    header_bytes = -(-(len(SANITY) + FIXED.size + 8 * order) // 8) * 8
    return {
        "order": order,
        "multiplier": multiplier,
        "model_type": code,
        "vocabulary": vocabulary,
        "counts": counts,
        "header_bytes": header_bytes,
    }


def check_binary(path, binary, order, ngrams, tools, fix):
    """The model build_binary wrote at path is of the format binary (a build_binary.format name), of order, with
    ngrams[k - 1] distinct k-grams (what lmplz counted), and as long as they make it (its words' strings, each
    ended by a 0 byte, after the structures): else an LmgapError that names tools (what built it) as the cause,
    and fix."""
    fmt = parse_format(binary)
    header = read_header(path)
    wrong = []
    if header["order"] != order:
        wrong.append(f"of order {header['order']}, where order {order} was asked")
    if header["model_type"] != model_type(fmt):
        built = MODEL_TYPES.get(header["model_type"], f"model type {header['model_type']}")
        wrong.append(f"as {built}, where `{binary}` is {MODEL_TYPES[model_type(fmt)]}")
    elif fmt.structure == PROBING and abs(header["multiplier"] - fmt.multiplier) > 1e-6:
        wrong.append(f"with probing multiplier {header['multiplier']:g}, where `{binary}` is {fmt.multiplier:g}")
    if not wrong and header["counts"] != list(ngrams):
        wrong.append(f"of {header['counts']} n-grams per order, where lmplz counted {list(ngrams)}")
    if not wrong:
        least = header["header_bytes"] + fmt.model_bytes(ngrams) + (ngrams[0] if header["vocabulary"] else 0)
        size = Path(path).stat().st_size
        if size < least:
            wrong.append(f"cut short: {size:,} bytes, where its header's counts take at least {least:,}")
    if wrong:
        raise LmgapError(
            f"{path}: build_binary exited 0 but wrote a model {'; and '.join(wrong)}. The tools that trained it "
            f"({tools}) are not KenLM's, or are broken: {fix}, then run the same command again"
        )
    return header
