"""KenLM's binary formats (build_binary's data structures and their options), by the names a config gives
them: `probing`, `probing-p1.2`, `trie`, `trie-q8b8`, `trie-a22`, `trie-q8b8-a22`, ... Each is named as
build_binary's flags name it, and each has its size by KenLM's own formula (lm/vocab.cc, lm/search_hashed.hh,
lm/search_trie.hh, lm/trie.cc, lm/quantize.hh, lm/bhiksha.cc), as `build_binary ARPA` prints it."""

import re
from dataclasses import dataclass

import numpy as np

from ..errors import LmgapError

PROBING = "probing"
# build_binary's defaults: -p 1.5; -b as -q.
PROBING_MULTIPLIER = 1.5
QUANT_MAX_BITS = 25
POINTER_MAX_BITS = 255

_PROBING = re.compile(r"probing(-p(?P<p>[0-9]+(\.[0-9]+)?))?")
_TRIE = re.compile(r"trie(-q(?P<q>[0-9]+)(b(?P<b>[0-9]+))?)?(-a(?P<a>[0-9]+))?")
FORMAT_HELP = (
    "a format is `probing` (KenLM's default), `probing-pP` (-p P, the hash tables' space multiplier, above 1), "
    "`trie`, or `trie` with `-qQ` or `-qQbB` (-q Q -b B: probabilities and backoffs quantised to Q and B bits, "
    f"1 to {QUANT_MAX_BITS}; B is Q unless given) and `-aA` (-a A: pointers compressed with at most A bits, 0 to "
    f"{POINTER_MAX_BITS}), in that order: e.g. `trie-q8b8-a22`"
)


@dataclass(frozen=True)
class Format:
    """A binary format: probing with its multiplier, or trie with its quantisation and pointer bits."""

    structure: str  # `probing` or `trie`
    multiplier: float = PROBING_MULTIPLIER
    prob_bits: int | None = None
    backoff_bits: int | None = None
    pointer_bits: int | None = None

    @property
    def name(self):
        """The canonical name (`trie-q8` is `trie-q8b8`; `probing-p1.5` is `probing`)."""
        if self.structure == PROBING:
            return PROBING if self.multiplier == PROBING_MULTIPLIER else f"probing-p{self.multiplier:g}"
        name = "trie"
        if self.prob_bits is not None:
            name += f"-q{self.prob_bits}b{self.backoff_bits}"
        if self.pointer_bits is not None:
            name += f"-a{self.pointer_bits}"
        return name

    @property
    def suffix(self):
        """What the format adds to a model's folder name: nothing for KenLM's default."""
        return "" if self.name == PROBING else f"-{self.name}"

    @property
    def quantised(self):
        return self.prob_bits is not None

    def flags(self):
        """build_binary's options for the format, as `build_binary ARPA` takes them to estimate its size."""
        if self.structure == PROBING:
            return [] if self.name == PROBING else ["-p", f"{self.multiplier:g}"]
        flags = ["-q", str(self.prob_bits), "-b", str(self.backoff_bits)] if self.quantised else []
        return flags + (["-a", str(self.pointer_bits)] if self.pointer_bits is not None else [])

    def model_bytes(self, counts):
        """The model's bytes for counts[k - 1] distinct k-grams, as build_binary estimates them."""
        if self.structure == PROBING:
            return probing_bytes(counts, self.multiplier)
        return sorted_vocabulary_bytes(counts[0]) + trie_bytes(counts, self)


def parse_format(text):
    """The Format a config's name gives; an LmgapError that says what a name may be."""
    text = str(text)
    if match := _PROBING.fullmatch(text):
        multiplier = float(match["p"]) if match["p"] else PROBING_MULTIPLIER
        if multiplier <= 1:
            raise LmgapError(f"binary format `{text}`: -p must be above 1; {FORMAT_HELP}.")
        return Format(PROBING, multiplier=multiplier)
    if match := _TRIE.fullmatch(text):
        prob = int(match["q"]) if match["q"] else None
        backoff = int(match["b"]) if match["b"] else prob
        pointer = int(match["a"]) if match["a"] else None
        if prob is not None and not (1 <= prob <= QUANT_MAX_BITS and 1 <= backoff <= QUANT_MAX_BITS):
            raise LmgapError(f"binary format `{text}`: quantisation takes 1 to {QUANT_MAX_BITS} bits; {FORMAT_HELP}.")
        if pointer is not None and pointer > POINTER_MAX_BITS:
            raise LmgapError(f"binary format `{text}`: -a takes at most {POINTER_MAX_BITS} bits; {FORMAT_HELP}.")
        return Format("trie", prob_bits=prob, backoff_bits=backoff, pointer_bits=pointer)
    raise LmgapError(f"binary format `{text}` is not one KenLM builds; {FORMAT_HELP}.")


def format_settings(setting):
    """build_binary.format (one name, or a list of them) as canonical names, KenLM's default first; two
    spellings of one format (`trie-q8`, `trie-q8b8`) are refused, as one of them would build nothing."""
    names = setting if isinstance(setting, list) else [setting]
    canonical = {}
    for name in names:
        same = canonical.setdefault(parse_format(name).name, name)
        if same != name:
            raise LmgapError(
                f"{name} is {same} spelt another way (both are the format {parse_format(name).name}, built once): "
                "drop one of them"
            )
    return sorted(canonical, key=lambda name: name != PROBING)


def gap_format(setting, built):
    """gap.format's canonical name: one of the formats built (built: build_binary.format), the first listed there
    if null (as listed: format_settings puts probing first)."""
    formats = format_settings(built)
    if setting is None:
        return parse_format(built[0] if isinstance(built, list) else built).name
    name = parse_format(setting).name
    if name not in formats:
        raise LmgapError(
            f"gap.format `{setting}` is not among the formats built (build_binary.format: {', '.join(formats)}); "
            "add it there, or set gap.format to one of them or null."
        )
    return name


def split_format(model):
    """(the name of the training a model's binary was built from, its format's name): `o5-trie-q8b8` is
    (`o5`, `trie-q8b8`), `o5` is (`o5`, `probing`). A format's name comes last and starts `trie` or
    `probing`, which no other part of a model's name does (lmgap.models.model_name)."""
    for structure in ("trie", PROBING):
        at = model.find(f"-{structure}")
        if at >= 0:
            return model[:at], parse_format(model[at + 1 :]).name
    return model, PROBING


def probing_bytes(counts, multiplier=PROBING_MULTIPLIER):
    """Bytes of KenLM's probing model for counts[k - 1] distinct k-grams (lm/vocab.cc,
    lm/search_hashed.hh; lmplz prints the same figure as `probing N assuming -p 1.5`)."""

    def buckets(entries):
        # KenLM multiplies in single precision.
        return max(entries + 1, int(np.float32(multiplier) * np.float32(entries)))

    unigrams, *middle, highest = counts
    return (
        8  # the vocabulary's header
        + 12 * buckets(unigrams)  # the vocabulary's hash table
        + 8 * (unigrams + 1)  # the unigrams, and <unk>
        + sum(16 * buckets(count) for count in middle)  # key, probability and backoff
        + 12 * buckets(highest)  # key and probability
    )


def sorted_vocabulary_bytes(words):
    """The trie's vocabulary: a count, then a 64-bit hash per word (lm/vocab.cc, SortedVocabulary::Size)."""
    return 8 + 8 * words


def required_bits(value):
    """util::RequiredBits: the bits that hold every number up to value."""
    return value.bit_length()


def _chop_bits(max_offset, max_next, pointer_bits):
    """lm/bhiksha.cc ChopBits: the high bits of each pointer that an array of offsets holds instead."""
    required = required_bits(max_next)
    best_chop, lowest = 0, None
    for chop in range(min(required, pointer_bits) + 1):
        change = (max_next >> (required - chop)) * 64 - max_offset * chop
        if lowest is None or change < lowest:
            lowest, best_chop = change, chop
    return best_chop


def _bit_packed_bytes(entries, max_vocab, remaining_bits):
    """lm/trie.cc BitPacked::BaseSize: a word index and the remaining bits per entry, one entry more, whole
    bytes, and 8 bytes of slack."""
    total_bits = required_bits(max_vocab) + remaining_bits
    return ((1 + entries) * total_bits + 7) // 8 + 8


def trie_bytes(counts, fmt):
    """lm/search_trie.hh TrieSearch::Size: the quantisation tables, the unigrams, each middle order's bit-packed
    entries with their pointers into the next order (compressed with -a), and the highest order's."""
    order = len(counts)
    if fmt.quantised:
        longest_table = (1 << fmt.prob_bits) * 4
        middle_table = (1 << fmt.backoff_bits) * 4 + longest_table
        size = (order - 2) * middle_table + longest_table + 8
        middle_bits, longest_bits = fmt.prob_bits + fmt.backoff_bits, fmt.prob_bits
    else:
        size, middle_bits, longest_bits = 0, 63, 31
    # +1 in case <unk> is missing, +1 for the final pointer; a probability, a backoff and a pointer each.
    size += (counts[0] + 2) * 16
    for k in range(1, order - 1):
        max_offset, max_next = counts[k] + 1, counts[k + 1]
        if fmt.pointer_bits is None:
            inline, table = required_bits(max_next), 0
        else:
            chop = _chop_bits(max_offset, max_next, fmt.pointer_bits)
            array = (max_next >> (required_bits(max_next) - chop)) + 1
            inline, table = required_bits(max_next) - chop, 8 * (1 + array) + 7
        size += table + _bit_packed_bytes(counts[k], counts[0], middle_bits + inline)
    return size + _bit_packed_bytes(counts[-1], counts[0], longest_bits)
