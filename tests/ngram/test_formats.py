"""KenLM's binary formats: their names, build_binary's arguments, and each format's size by KenLM's formula
against the estimate build_binary itself prints for an ARPA header (it reads no more than the header)."""

import random
import re
import subprocess

import pytest

from lmgap.errors import LmgapError
from lmgap.ngram.formats import format_settings, gap_format, parse_format, split_format
from lmgap.ngram.run import build_binary_command, train

# build_binary's estimate lines, in its order (the second is -r's rest costs, which we do not offer).
ESTIMATED = ("probing-p{p}", None, "trie", "trie-q{q}b{b}", "trie-a{a}", "trie-q{q}b{b}-a{a}")
UNITS = {"": 1, "k": 2**10, "M": 2**20, "G": 2**30}


def printed_estimates(build_binary, arpa, flags):
    """{format name: figure} and the unit build_binary prints them in, for ARPA's counts."""
    text = subprocess.run([build_binary, *flags, arpa], capture_output=True, text=True, check=True).stderr
    unit = UNITS[re.search(r"^type\s+(\S?)B$", text, re.M).group(1)]
    figures = [int(n) for n in re.findall(r"^(?:probing|trie)\s+(\d+) ", text, re.M)]
    assert len(figures) == len(ESTIMATED), text
    return figures, unit


def header(tmp_path, counts):
    arpa = tmp_path / "header.arpa"
    lines = ["", "\\data\\", *(f"ngram {k}={count}" for k, count in enumerate(counts, 1)), "", "\\1-grams:"]
    arpa.write_text("\n".join(lines) + "\n")
    return arpa


@pytest.mark.parametrize(
    "counts",
    [
        [5, 7],  # a few bytes: build_binary prints them to the byte
        [9, 20, 24],
        [40, 90, 120, 130, 131],
        [1378, 2948, 3487, 3539],
        [61_873, 385_188, 678_380, 800_029, 829_309],
        # The real corpus's 5-gram (BENCHMARKS.md): past 2^32 bits an entry, past 2^32 entries' bytes.
        [2_718_016, 51_412_389, 62_950_167, 86_401_234, 105_117_233],
        [2**24 + 3, 2**30, 2**31 + 5, 2**32 - 1],
    ],
)
@pytest.mark.parametrize(
    "flags, bits",
    [
        ([], (1.5, 8, 8, 22)),
        (["-p", "1.2", "-q", "4", "-b", "6", "-a", "10"], (1.2, 4, 6, 10)),
        (["-q", "13", "-a", "0"], (1.5, 13, 13, 0)),
        (["-q", "25", "-b", "1", "-a", "255"], (1.5, 25, 1, 255)),
    ],
)
def test_every_format_is_the_size_build_binary_estimates(kenlm_bin, tmp_path, counts, flags, bits):
    p, q, b, a = bits
    figures, unit = printed_estimates(kenlm_bin / "build_binary", header(tmp_path, counts), flags)
    for template, printed in zip(ESTIMATED, figures):
        if template:
            fmt = parse_format(template.format(p=p, q=q, b=b, a=a))
            assert fmt.model_bytes(counts) // unit == printed, (fmt.name, counts, flags)


def test_names_are_canonical_and_give_build_binarys_flags():
    def command(binary):
        return build_binary_command("bb", binary, "out", 64, "tmp/", "in.arpa")

    assert command("probing") == ["bb", "in.arpa", "out"]
    assert parse_format("probing-p1.5").name == "probing"
    assert command("probing-p1.20") == ["bb", "-p", "1.2", "in.arpa", "out"]
    # A trie always sorts within -S, through -T (build_binary's own default is 80% of the machine's memory).
    assert command("trie") == ["bb", "-S", "64M", "-T", "tmp/", "trie", "in.arpa", "out"]
    assert parse_format("trie-q8").name == "trie-q8b8"
    assert command("trie-q8b4-a22") == [
        "bb",
        "-q",
        "8",
        "-b",
        "4",
        "-a",
        "22",
        "-S",
        "64M",
        "-T",
        "tmp/",
        "trie",
        "in.arpa",
        "out",
    ]
    assert parse_format("trie-a0").suffix == "-trie-a0"
    assert parse_format("probing").suffix == ""
    # Canonical names, the default first.
    assert format_settings(["trie-q8", "probing-p1.5", "trie"]) == ["probing", "trie-q8b8", "trie"]
    assert format_settings("trie") == ["trie"]
    # The gap task's format, null: the first listed, as listed (probing is sorted first among the built).
    assert gap_format(None, ["trie-q8", "probing"]) == "trie-q8b8" and gap_format(None, "trie") == "trie"
    assert gap_format("probing", ["trie-q8", "probing"]) == "probing"
    # One format spelt two ways would be built once: the second spelling is refused.
    for twins in (["trie-q8", "trie-q8b8"], ["probing", "probing-p1.5"]):
        with pytest.raises(LmgapError, match=rf"^{twins[1]} is {twins[0]} spelt another way .*: drop one of them"):
            format_settings(twins)


@pytest.mark.parametrize("name", ["hash", "trie-q0", "trie-q26", "trie-q8b30", "trie-a256", "probing-p1", "trie-a8-q8"])
def test_a_format_kenlm_does_not_build_is_refused_with_what_it_may_be(name):
    with pytest.raises(LmgapError, match=f"`{re.escape(name)}`.*a format is `probing`"):
        parse_format(name)


@pytest.mark.parametrize(
    "model, parts",
    [
        ("o5", ("o5", "probing")),
        ("o5-trie", ("o5", "trie")),
        ("o3-prune0.0.1-frac0.1-interp0-trie-q8b8-a22", ("o3-prune0.0.1-frac0.1-interp0", "trie-q8b8-a22")),
        ("o4-pad-probing-p1.2", ("o4-pad", "probing-p1.2")),
        ("o4-frac0.5-trie-a0", ("o4-frac0.5", "trie-a0")),
    ],
)
def test_a_models_name_gives_its_training_and_format(model, parts):
    assert split_format(model) == parts


def test_formats_built_from_a_copy_of_the_stream_are_those_built_from_the_stream(tmp_path, kenlm_bin):
    rng = random.Random(7)
    words = [f"w{i}" for i in range(300)]
    text = tmp_path / "train.txt"
    text.write_text("".join(" ".join(rng.choices(words, k=rng.randint(3, 30))) + "\n" for _ in range(2000)))
    tools = {"lmplz": kenlm_bin / "lmplz", "build_binary": kenlm_bin / "build_binary", "text": text}
    formats = ("probing", "trie", "trie-q8b8-a22")
    built = {}
    for together in (True, False):
        binaries = {binary: tmp_path / f"{binary}-{together}.binary" for binary in formats}
        with open(tmp_path / "train.log", "w") as log:
            *_, usage, _, _ = train(
                tools,
                {"order": 3, "mem_mb": 64, "sort_mb": 32, "discount_fallback": True},
                binaries,
                tmp_path / "tmp" / "o3",
                log,
                None,
                together,
            )
        assert set(usage["build_binary"]) == set(formats)
        built[together] = {binary: path.read_bytes() for binary, path in binaries.items()}
        logged = (tmp_path / "train.log").read_text()
        # One after another, each but the first reads a copy of the ARPA text in the job's temporary folder.
        assert len(re.findall(r" trie \S+/model\.arpa ", logged)) == (0 if together else 2)
    assert built[True] == built[False]
    assert not list((tmp_path / "tmp").iterdir())


def test_a_build_binary_that_fails_at_once_is_blamed_not_the_one_its_stop_cut_short(tmp_path, kenlm_bin):
    # The trie's build_binary stops reading at once; the probing one then fails on the stream cut short.
    failing = tmp_path / "build_binary"
    failing.write_text(
        '#!/bin/bash\ncase " $* " in *" trie "*) echo "cannot write the trie" >&2; exit 1;; esac\n'
        f'exec {kenlm_bin / "build_binary"} "$@"\n'
    )
    failing.chmod(0o755)
    rng = random.Random(8)
    text = tmp_path / "train.txt"
    text.write_text("".join(" ".join(rng.choices("abcdefgh", k=20)) + "\n" for _ in range(20000)))
    tools = {"lmplz": kenlm_bin / "lmplz", "build_binary": failing, "text": text}
    binaries = {binary: tmp_path / f"{binary}.binary" for binary in ("probing", "trie")}
    with open(tmp_path / "train.log", "w") as log, pytest.raises(LmgapError) as failed:
        train(
            tools, {"order": 3, "mem_mb": 64, "sort_mb": 32, "discount_fallback": True}, binaries, tmp_path / "t", log
        )
    assert str(failed.value).startswith("build_binary failed on the order-3 model in trie;")
    assert "cannot write the trie" in str(failed.value)
