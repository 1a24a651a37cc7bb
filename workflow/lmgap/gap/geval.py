"""GEval's hashed metrics (LogLossHashed, LikelihoodHashed, PerplexityHashed), computed as GEval does.

A line of out.tsv is a distribution over words, `word:value ... :value`. GEval hashes each word
into one of 2^bits buckets (MurmurHash3 x86 32-bit of its UTF-8 bytes, seeded with the 1-based line
number), spreads a bare `:value` (the rest mass) over all buckets, and reads the natural-log
probability of the bucket the expected word falls in. Every step below repeats GEval's own
arithmetic in the same order (amu-cai/geval, src/GEval/LogLossHashed.hs, Core.hs and
Data.Text.Read's `double`), so that the figures agree to the last digit:

- tokens are split on single spaces and at their last `:`; a bare `:v` is the rest mass;
- if every value lies in [0, 1] and one is positive, the values are probabilities: a total off 1
  (by more than 1e-8 below, or at all above) is divided out when it is above 1 or a rest mass is
  given, and otherwise the missing mass becomes the rest mass; they are then taken as logs;
- log-probabilities whose probabilities sum to less than 1 (none positive, no rest mass given)
  get the missing mass as rest mass;
- each value is added to its bucket as log(exp(bucket) + exp(value)); the rest mass adds
  value - log(2^bits) to every bucket;
- if the buckets' probabilities then sum to more than 1 or less than 1 - 1e-8, every bucket is
  divided by that sum;
- LogLossHashed is minus the mean over lines of the expected word's bucket, LikelihoodHashed
  exp(-LogLossHashed) and PerplexityHashed exp(LogLossHashed). A bucket of zero probability
  makes them infinite (zero for the likelihood).

A line without any `:` is GEval's other form: exactly 2^bits log-probabilities, one per bucket.
"""

import bz2
import functools
import gzip
import lzma
import math
import re
import unicodedata

import mmh3

from ..errors import LmgapError

DEFAULT_BITS = 10
TOLERANCE = 1e-8
# Data.Text.Read's `double`: optional sign, digits, optional `.digits`, optional exponent.
NUMBER = re.compile(r"([+-]?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?")
# Numbers whose value GEval's reader rounds once, from integers below 2^53: `0.` and at most 15
# digits is digits / 10^n, an integer of at most 15 digits itself; Python's float() rounds the
# same exact rational correctly, so it gives the same double, faster.
ONE_ROUNDING = re.compile(r"[+-]?(?:0\.[0-9]{1,15}|[0-9]{1,15})")
INF = math.inf


def _log(x):
    """Haskell's log: -Infinity at 0, NaN below."""
    if x > 0:
        return math.log(x)
    return -INF if x == 0 else math.nan


def _exp(x):
    """Haskell's exp: Infinity instead of an overflow error."""
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def _div(x, y):
    """Haskell's Double division: no exception for a zero divisor."""
    if y == 0:
        return math.nan if x == 0 or math.isnan(x) else math.copysign(INF, x)
    return x / y


@functools.lru_cache(maxsize=None)
def _power_of_ten(n):
    """10 ^^ n in Double, by GHC's exponentiation by squaring (exact for |n| <= 22)."""
    if n < 0:
        return 1.0 / _power_of_ten(-n)
    if n == 0:
        return 1.0
    x, accumulated = 10.0, None
    while True:
        if n % 2 == 0:
            x, n = x * x, n // 2
        elif n == 1:
            return x if accumulated is None else x * accumulated
        else:
            accumulated = x if accumulated is None else x * accumulated
            x, n = x * x, n // 2


def _to_double(integer):
    try:
        return float(integer)
    except OverflowError:
        return INF


def parse_number(text):
    """A number as GEval reads it (Data.Text.Read.double, nothing after it); ValueError else."""
    if ONE_ROUNDING.fullmatch(text):
        return float(text)
    match = NUMBER.match(text)
    if not match:
        raise ValueError("input does not start with a digit")
    if match.end() != len(text):
        raise ValueError("number text found after a number")
    sign, real, fraction, power = match.groups()
    power = int(power) if power else 0
    if fraction:
        value = _to_double(int(real)) + _to_double(int(fraction)) / _to_double(10 ** len(fraction))
        value *= _power_of_ten(power)
    else:
        value = _to_double(int(real)) * _power_of_ten(power) if power else _to_double(int(real))
    return -value if sign == "-" else value


class TokenError(ValueError):
    """A token GEval would refuse: its position (from 1), its text and why."""

    def __init__(self, position, token, reason):
        super().__init__(reason)
        self.position, self.token, self.reason = position, token, reason


REST = None  # the word of a bare `:value`, the rest mass


def parse_line(line):
    """[(word or REST, value)] of an out.tsv line in the `word:value` form."""
    specs = []
    for position, token in enumerate(line.split(" "), start=1):
        word, colon, number = token.rpartition(":")
        if not colon:
            reason = (
                "empty token (two spaces in a row, or a space at the start or end)" if not token else "colon expected"
            )
            raise TokenError(position, token, reason)
        try:
            specs.append((word if word else REST, parse_number(number)))
        except ValueError as err:
            raise TokenError(position, token, str(err)) from None
    return specs


def _probabilities_to_logs(specs):
    """GEval's lookForProbs: values that are all probabilities become log-probabilities."""
    if not (all(0.0 <= v <= 1.0 for _, v in specs) and any(0.0 < v <= 1.0 for _, v in specs)):
        return specs
    total = 0.0
    for _, value in specs:
        total += value
    if _off_one(total):
        if total > 1.0 or any(word is REST for word, _ in specs):
            specs = [(word, _div(value, total)) for word, value in specs]
        else:
            specs = [(REST, 1 - total), *specs]
    return [(word, _log(value)) for word, value in specs]


def _complete_log_probabilities(specs):
    """GEval's normalizeLogProbs: log-probabilities short of 1 get the rest as rest mass."""
    total = 0.0
    for _, value in specs:
        total += _exp(value)
    if (
        _off_one(total)
        and 0.0 < total < 1.0
        and not any(word is REST for word, _ in specs)
        and all(value <= 0 for _, value in specs)
    ):
        return [(REST, _log(1 - total)), *specs]
    return specs


def _off_one(total):
    return total > 1.0 or total < 1.0 - TOLERANCE


def bucket(word, bits, seed):
    """GEval's fingerprint: MurmurHash3 x86 32-bit of the UTF-8 bytes, seeded, mod 2^bits."""
    return mmh3.hash(word.encode("utf-8"), seed, signed=False) % (1 << bits)


class Buckets:
    """The 2^bits log-probabilities of one line; buckets never touched by a word share one value."""

    def __init__(self, bits, untouched=-INF, touched=None):
        self.size = 1 << bits
        self.untouched = untouched
        self.touched = touched if touched is not None else {}

    @classmethod
    def from_specs(cls, specs, bits, seed):
        buckets = cls(bits)
        spread = math.log(buckets.size)
        for word, value in _complete_log_probabilities(_probabilities_to_logs(specs)):
            if word is REST:
                delta = value - spread
                buckets.untouched = _log_add(buckets.untouched, delta)
                for index in buckets.touched:
                    buckets.touched[index] = _log_add(buckets.touched[index], delta)
            else:
                index = bucket(word, bits, seed)
                buckets.touched[index] = _log_add(buckets.touched.get(index, buckets.untouched), value)
        return buckets

    @classmethod
    def from_log_probabilities(cls, values, bits):
        """GEval's other form: one log-probability per bucket."""
        buckets = cls(bits)
        if len(values) != buckets.size:
            raise ValueError(f"unexpected number of log probs ({len(values)}, not {buckets.size})")
        buckets.touched = dict(enumerate(values))
        return buckets

    def value(self, index):
        return self.touched.get(index, self.untouched)

    def normalised(self):
        """GEval's normalizeDistribution: divide by the total when it is off one."""
        total, shared = 0.0, _exp(self.untouched)
        for index in range(self.size):
            total += _exp(self.touched[index]) if index in self.touched else shared
        if not _off_one(total):
            return self
        rescale = lambda value: _log(_div(_exp(value), total))  # noqa: E731
        return Buckets(
            self.size.bit_length() - 1,
            rescale(self.untouched),
            {index: rescale(value) for index, value in self.touched.items()},
        )


def _log_add(current, delta):
    return _log(_exp(current) + _exp(delta))


def parse_out_line(line):
    """(specs, None) for a `word:value` line, (None, values) for GEval's list of log-probabilities."""
    if ":" in line:
        return parse_line(line), None
    values = []
    for position, token in enumerate(line.split(" "), start=1):
        try:
            values.append(parse_number(token))
        except ValueError as err:
            raise TokenError(position, token, str(err)) from None
    return None, values


def line_log_probability(specs, values, expected, bits, seed):
    """The natural-log probability GEval gives the expected word on one parsed out.tsv line."""
    if specs is not None:
        buckets = Buckets.from_specs(specs, bits, seed)
    else:
        buckets = Buckets.from_log_probabilities(values, bits)
    return buckets.normalised().value(bucket(expected, bits, seed))


def ranked_words(specs):
    """The listed words, best first by GEval's ordering of (value, word) pairs; rest mass left out."""
    if specs is None:
        return []
    return [word for _, word in sorted(((value, word) for word, value in specs if word is not REST), reverse=True)]


def metric_names(bits):
    """GEval's names: the bucket count is spelled out only when it is not the default."""
    suffix = "" if bits == DEFAULT_BITS else str(bits)
    return [f"LogLossHashed{suffix}", f"LikelihoodHashed{suffix}", f"PerplexityHashed{suffix}"]


# The compressions GEval undoes before it reads a file, by its first bytes (Data.Conduit.AutoDecompress: an
# out.tsv may be sent compressed), with the module that undoes each here.
COMPRESSIONS = {b"\x1f\x8b": ("gzip", gzip), b"BZh": ("bzip2", bz2), b"\xfd7zXZ\x00": ("xz", lzma)}


def decompressed(data, path):
    """A file's bytes as GEval reads them: decompressed where its first bytes say it is compressed."""
    for magic, (kind, module) in COMPRESSIONS.items():
        if data.startswith(magic):
            try:
                return module.decompress(data)
            except (OSError, EOFError, ValueError, lzma.LZMAError) as err:
                raise LmgapError(
                    f"{path} is {kind}-compressed, but cut short or damaged ({err}): compress it again from the "
                    "file it was made from"
                ) from None
    return data


def read_lines(path):
    """Lines of a UTF-8 file (or one compressed as GEval takes it) without their line ends, as GEval reads them."""
    with open(path, "rb") as handle:
        data = decompressed(handle.read(), path)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    out = []
    for number, line in enumerate(lines, start=1):
        try:
            out.append(line.removesuffix(b"\r").decode("utf-8"))
        except UnicodeDecodeError as err:
            raise LmgapError(
                f"{path} line {number} is not valid UTF-8 ({err.reason} at byte {err.start}), which GEval "
                "reads; save the file as UTF-8"
            ) from None
    return out


def read_predictions(path):
    """The lines of an out.tsv the pipeline wrote, each read as GEval reads a line of `word:value` tokens; a
    damaged one (cut short, edited) is named with its line and the fix."""
    from ..files import DamagedRecord

    lines = read_lines(path)
    for number, line in enumerate(lines, start=1):
        try:
            parse_line(line)
        except ValueError as err:
            raise DamagedRecord(path, f"line {number}: {err}") from None
    return lines


def strip(text):
    """Text without the whitespace around it, as GEval reads an expected line for the hashed metrics (its
    expectedParser `onlyStrip`: Data.Text.strip, whose Data.Char.isSpace is the ASCII spaces, a no-break space and
    the other Unicode spaces, and nothing else)."""
    spaces = " \t\n\r\f\v"
    start, end = 0, len(text)
    while start < end and (text[start] in spaces or unicodedata.category(text[start]) == "Zs"):
        start += 1
    while end > start and (text[end - 1] in spaces or unicodedata.category(text[end - 1]) == "Zs"):
        end -= 1
    return text[start:end]


def score_lines(out_lines, expected_lines, bits=DEFAULT_BITS, out_name="out.tsv", expected_name="expected.tsv"):
    """Every metric of an output against the expected words, and each line's log-probability."""
    if not out_lines:
        raise LmgapError(f"{out_name} is empty; write one line per line of {expected_name}")
    if len(out_lines) != len(expected_lines):
        few = "few" if len(out_lines) < len(expected_lines) else "many"
        raise LmgapError(
            f"{out_name} has {len(out_lines)} lines but {expected_name} has {len(expected_lines)} "
            f"(GEval: too {few} lines in the output file); write one line per line of {expected_name}"
        )
    total, top1, top10, per_line = 0.0, 0, 0, []
    for number, (line, expected) in enumerate(zip(out_lines, map(strip, expected_lines)), start=1):
        try:
            specs, values = parse_out_line(line)
            log_probability = line_log_probability(specs, values, expected, bits, number)
        except TokenError as err:
            raise LmgapError(
                f"{out_name} line {number}, token {err.position} {err.token!r}: {err.reason} "
                "(GEval refuses the file); write tokens as word:probability separated by single spaces"
            ) from None
        except ValueError as err:
            raise LmgapError(
                f"{out_name} line {number}: {err} (GEval refuses the file); write the line as "
                f"word:probability tokens separated by single spaces, or as 2^{bits} log-probabilities"
            ) from None
        per_line.append(log_probability)
        total += log_probability
        ranked = ranked_words(specs)
        top1 += bool(ranked) and ranked[0] == expected
        top10 += expected in ranked[:10]
    log_loss = -(total / len(out_lines))
    names = metric_names(bits)
    metrics = {
        names[0]: log_loss,
        names[1]: _exp(-log_loss),
        names[2]: _exp(log_loss),
        "Accuracy": top1 / len(out_lines),
        "Top10Accuracy": top10 / len(out_lines),
    }
    return metrics, per_line


def token_warnings(out_lines, out_name="out.tsv"):
    """What GEval scores, as here, but was most likely not meant: a token holding a tab (GEval splits at spaces
    alone: `w:0.5<TAB>x:0.4` is the one word `w:0.5<TAB>x`) and a byte-order mark, part of the first word."""
    warnings = []
    lines = [number for number, line in enumerate(out_lines, start=1) if "\t" in line]
    if lines:
        more = f" and {len(lines) - 5} more" if len(lines) > 5 else ""
        warnings.append(
            f"{out_name} has tokens holding a tab, line {', '.join(map(str, lines[:5]))}{more}: GEval "
            "splits tokens at spaces alone and takes each such token as one word, as this score does; "
            "separate tokens with single spaces"
        )
    if out_lines and out_lines[0].startswith("\ufeff"):
        warnings.append(
            f"{out_name} begins with a byte-order mark, which GEval takes as part of the first word, as "
            "this score does; save the file as UTF-8 without one"
        )
    return warnings


def score_files(out_path, expected_path, bits=DEFAULT_BITS):
    """score_lines on two files."""
    return score_lines(read_lines(out_path), read_lines(expected_path), bits, str(out_path), str(expected_path))
