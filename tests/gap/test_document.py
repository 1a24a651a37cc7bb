"""The document family against hand-worked weights, a fit whose answer the held-out gaps force,
and its out.tsv read back as GEval reads it."""

import json
import lzma
import math
from types import SimpleNamespace

import pytest

from lmgap.gap.document import DocumentModel, Page, fit, write_document_predictions
from lmgap.gap.geval import parse_line


class Log:
    def write(self, text):
        self.text = text


def probabilities(left, right, variant="both", decay=None, rarity=0.0, pairs=0.0, counts=None):
    page = Page(left, right, variant)
    model = DocumentModel({"variant": variant, "decay": decay, "rarity": rarity, "pairs": pairs}, counts or {})
    return {word: value for word, value in zip(page.words, model.probabilities(page).tolist()) if value}


def test_the_word_cache_sums_each_occurrence_s_nearness_damped_by_rarity():
    # Left "a b c", right "c d": distances a 3, b 2, c 1, then c 1, d 2.
    assert probabilities(b"a b c", b"c d") == pytest.approx({"a": 0.2, "b": 0.2, "c": 0.4, "d": 0.2})
    raw = {"a": math.exp(-3), "b": math.exp(-2), "c": 2 * math.exp(-1), "d": math.exp(-2)}
    total = sum(raw.values())
    assert probabilities(b"a b c", b"c d", decay=1.0) == pytest.approx({w: v / total for w, v in raw.items()})
    # c seen 3 times among the training gap words: (1 + 3) ^ -0.5 = 0.5 of its weight.
    assert probabilities(b"a b c", b"c d", rarity=0.5, counts={"c": 3}) == pytest.approx(
        {"a": 0.25, "b": 0.25, "c": 0.25, "d": 0.25}
    )
    # The left-context ablation reads the left words only; a word that is not UTF-8 is never
    # listed, and keeps its place.
    assert probabilities(b"a b c", b"c d", variant="left") == pytest.approx({"a": 1 / 3, "b": 1 / 3, "c": 1 / 3})
    assert probabilities(b"a \xff c", b"") == pytest.approx({"a": 0.5, "c": 0.5})


def test_the_pair_cache_counts_the_gap_s_neighbours_neighbours():
    # "mr smith said mr [gap] told jones": after the left word "mr" comes "smith" once; before the
    # right word "told" comes nothing else; the pair spanning the gap is no evidence.
    left, right = b"mr smith said mr", b"told jones"
    page = Page(left, right, "both")
    assert dict(zip(page.words, page.pairs.tolist())) == {"jones": 0, "mr": 0, "said": 0, "smith": 1, "told": 0}
    assert page.level() == "0+pair"
    # "x told y [gap] told": before the right word "told" comes "x"; "y" precedes the gap.
    page = Page(b"x told y", b"told", "both")
    assert dict(zip(page.words, page.pairs.tolist())) == {"told": 0, "x": 1, "y": 0}
    assert Page(b"x told y", b"told", "left").pairs.sum() == 0 and Page(b"a b", b"c", "both").level() == "0"
    # Mixed at weight 0.5 with the word cache (no decay: mr 2/6, smith, said, told, jones 1/6).
    mixed = probabilities(left, right, pairs=0.5)
    assert mixed["smith"] == pytest.approx(0.5 / 6 + 0.5) and mixed["mr"] == pytest.approx(0.5 * 2 / 6)


def heldout_gaps(word):
    """Held-out gaps whose word is the one next to the gap ("near"), a far word repeated three
    times at the start of the page ("far"), or the word after the pair's first word ("pair")."""
    gaps = []
    for number in range(40):
        filler = " ".join(f"f{number}x{i}" for i in range(60)).encode()
        far, near, name = f"far{number}".encode(), f"near{number}".encode(), f"name{number}".encode()
        left = b" ".join([far, far, far, b"mr", name, filler, near, b"mr"])
        expected = {"near": near, "far": far, "pair": name}[word]
        gaps.append((number + 1, expected, left, b"r1 r2"))
    return gaps


def test_a_page_s_words_are_split_as_geval_splits_them_and_never_listed_unless_utf8():
    # A no-break space is part of its word, on an ASCII page or not; a word that is not UTF-8
    # keeps its place (the distances of the others) but is never listed.
    assert Page("Mr.\u00a0Smith came".encode(), b"", "both").words == ["Mr.\u00a0Smith", "came"]
    page = Page(b"q \xff " + "Mr.\u00a0Smith".encode(), b"came", "both")
    assert page.words == ["", "Mr.\u00a0Smith", "came", "q"] and page.distances.tolist() == [3, 2, 1, 1]
    assert "" not in probabilities(b"q \xff " + "Mr.\u00a0Smith".encode(), b"came")
    # A pair made of a word that cannot be listed is no pair found.
    assert Page(b"q \xff b", b"b \xfe r", "both").level() == "0"


def test_the_heldout_gaps_choose_the_decay_and_the_pair_weight():
    settings = {"variant": "both", "decays": [1, 10, None], "rarity": 0.0, "top_k": 100}
    model, table, scores = fit(heldout_gaps("near"), settings, {})
    assert model.settings["decay"] == 1 and model.settings["pairs"] == 0
    assert table["both"]["hits"] == 40 and table["both"]["levels"] == {"1+pair": [40, 40]}
    model, _, scores = fit(heldout_gaps("far"), settings, {})
    assert model.settings["decay"] is None and model.settings["pairs"] == 0
    # Without decay the far word has 3 of the 69 occurrences.
    assert scores["decay None, pairs 0.0"] == pytest.approx(math.log(3 / 69))
    model, _, _ = fit(heldout_gaps("pair"), settings, {})
    assert model.settings["pairs"] == 0.9


def write_split(folder, lines):
    folder.mkdir(parents=True)
    with lzma.open(folder / "in.tsv.xz", "wt", encoding="utf-8") as handle:
        for left, right in lines:
            handle.write(f"id\tyear\t{left}\t{right}\n")


def test_out_lines_give_the_listed_words_the_measured_share(tmp_path):
    # Held out: 8 of 10 gaps' words are in their short context (level 0), so the listed words
    # share (8 + 20 * 9/12) / (10 + 20) = 23 / 30 of the mass (coverage.share's shrinkage).
    heldout = tmp_path / "heldout.tsv"
    rows = [f"{n}\tw{n}\tw{n} x y\tz\n" if n < 8 else f"{n}\tmissing\tx y\tz\n" for n in range(10)]
    heldout.write_text("".join(rows))
    gap_words = tmp_path / "gap_words.tsv"
    gap_words.write_text("x\t5\n")
    write_split(tmp_path / "dev-0", [("b b a", "c"), ("solo", "")])
    outputs = SimpleNamespace(out=tmp_path / "out.tsv", stats=tmp_path / "stats.json", fit=tmp_path / "fit.json")
    settings = {"variant": "both", "decays": [None], "rarity": 0.0, "top_k": 2}
    write_document_predictions(tmp_path / "dev-0", heldout, gap_words, settings, outputs, Log())
    mass = 23 / 30
    lines = outputs.out.read_text().splitlines()
    first = dict(parse_line(lines[0]))
    # b, b, a, c (no pair): b 1/2, then a and c 1/4 each, of which top_k = 2 keeps b and a (word order),
    # renormalised to 2/3 and 1/3 of the mass.
    assert first["b"] == pytest.approx(mass * 2 / 3, rel=1e-5)
    assert first["a"] == pytest.approx(mass / 3, rel=1e-5)
    assert first[None] == pytest.approx(1 - float(f"{mass * 2 / 3:.6g}") - float(f"{mass / 3:.6g}"))
    assert dict(parse_line(lines[1]))["solo"] == pytest.approx(mass, rel=1e-5)
    stats = json.loads(outputs.stats.read_text())
    assert stats["gaps"] == 2 and stats["listed_per_gap"] == 1.5
    assert "(8 are)" in stats["p0_method"] and "no decay" in stats["p0_method"]
    recorded = json.loads(outputs.fit.read_text())
    assert recorded["decay"] is None and recorded["p0"]["both"]["hits"] == 8
