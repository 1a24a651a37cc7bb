"""The rebuilt text equals the seed recipe's output on the same bytes, for both layouts."""

import lzma
import subprocess

import pytest

import hand_recipe
from lmgap.corpus.rebuild import read_contexts, rebuild_split
from lmgap.errors import LmgapError

TRICKY_CONTEXTS = [
    (b"the old\\nmill", b"stood\\n\\nthere"),
    (b"<s> begins <s>here", b"and ends<s>"),
    (b"", b"right only"),
    (b"left only", b""),
    (b"", b""),
    (b"  spaced   out ", b" x "),
    (b"back\\slash \\\\n and \\t", b"caf\xc3\xa9 \xe2\x80\x94 dash"),
]


def metadata(layout, index):
    cols = [b"id\\n%d" % index, b"<s>paper", b"7", b"1873.5", b"", b"x y"]
    return cols if layout == 8 else [cols[0], cols[3]]


def write_split(split_dir, layout, gap_words, contexts, header=True, final_newline=True):
    split_dir.mkdir(parents=True, exist_ok=True)
    lines = [b"\t".join([*metadata(layout, i), left, right]) for i, (left, right) in enumerate(contexts)]
    body = b"\n".join(lines) + (b"\n" if final_newline else b"")
    (split_dir / "in.tsv.xz").write_bytes(lzma.compress(body))
    (split_dir / "expected.tsv").write_bytes(b"".join(w + b"\n" for w in gap_words))
    if header:
        names = ["FileId", "Paper", "Idx", "Year", "Month", "Day"][: layout - 2] + ["Left", "Right"]
        (split_dir / "in-header.tsv").write_text("\t".join(names) + "\n")


def seed_recipe(split_dir, layout):
    """The bytes the hand recipe's rebuild command writes for a split."""
    out = split_dir.parent / f"{split_dir.name}.recipe.txt"
    subprocess.run(["bash", "-c", hand_recipe.rebuild_command(split_dir, out, layout)], check=True)
    return out.read_bytes()


@pytest.mark.parametrize("layout", [8, 4])
@pytest.mark.parametrize("header", [True, False])
def test_rebuild_matches_seed_recipe(tmp_path, layout, header):
    gaps = [b"word%d" % i for i in range(len(TRICKY_CONTEXTS) - 1)] + [b"<s>gap\\n"]
    write_split(tmp_path / "dev-0", layout, gaps, TRICKY_CONTEXTS, header=header)
    out = tmp_path / "dev-0.txt"
    assert rebuild_split(tmp_path / "dev-0", out) == len(TRICKY_CONTEXTS)
    expected = seed_recipe(tmp_path / "dev-0", layout)
    assert out.read_bytes() == expected
    # Hand-checked lines: escaped breaks and <s> become spaces, empty contexts stay empty.
    lines = out.read_bytes().split(b"\n")
    assert lines[0] == b"the old mill word0 stood  there"
    assert lines[1] == b"  begins  here word1 and ends "
    assert lines[4] == b" word4 "


def test_last_line_without_newline_still_ends_with_one(tmp_path):
    write_split(tmp_path / "dev-0", 8, [b"a", b"b"], [(b"x", b"y"), (b"z", b"w")], final_newline=False)
    out = tmp_path / "dev-0.txt"
    rebuild_split(tmp_path / "dev-0", out)
    assert out.read_bytes() == b"x a y\nz b w\n"


@pytest.mark.parametrize("gaps, in_lines", [(2, 3), (4, 3)])
def test_line_count_mismatch_names_both_files_and_counts(tmp_path, gaps, in_lines):
    contexts = [(b"l", b"r")] * in_lines
    write_split(tmp_path / "dev-0", 8, [b"g"] * gaps, contexts)
    out = tmp_path / "dev-0.txt"
    with pytest.raises(LmgapError) as err:
        rebuild_split(tmp_path / "dev-0", out)
    assert f"dev-0/expected.tsv has {gaps} lines but dev-0/in.tsv.xz has {in_lines}" in str(err.value)
    assert not out.exists() and list(tmp_path.iterdir()) == [tmp_path / "dev-0"]


def test_wrong_column_count_names_file_and_line(tmp_path):
    write_split(tmp_path / "train", 8, [b"a", b"b"], [(b"x", b"y"), (b"z", b"w")])
    body = lzma.decompress((tmp_path / "train/in.tsv.xz").read_bytes()).split(b"\n")
    body[1] = b"only\tthree\tcolumns"
    (tmp_path / "train/in.tsv.xz").write_bytes(lzma.compress(b"\n".join(body)))
    out = tmp_path / "train.txt"
    with pytest.raises(LmgapError, match=r"train/in.tsv.xz line 2 has 3 tab-separated columns, expected 8"):
        rebuild_split(tmp_path / "train", out)
    assert not out.exists()


def test_missing_expected_is_named(tmp_path):
    write_split(tmp_path / "dev-0", 8, [b"a"], [(b"x", b"y")])
    (tmp_path / "dev-0/expected.tsv").unlink()
    with pytest.raises(LmgapError, match="dev-0/expected.tsv is missing"):
        rebuild_split(tmp_path / "dev-0", tmp_path / "out.txt")


def test_bytes_that_are_not_utf8_pass_through_like_the_seed_recipe(tmp_path):
    contexts = [(b"caf\xe9 \xff\xfe", b"\xc3(broken"), (b"ok", b"fine")]
    write_split(tmp_path / "dev-0", 8, [b"\x80gap", b"w"], contexts)
    out = tmp_path / "dev-0.txt"
    rebuild_split(tmp_path / "dev-0", out)
    assert out.read_bytes() == seed_recipe(tmp_path / "dev-0", 8)
    assert out.read_bytes().startswith(b"caf\xe9 \xff\xfe \x80gap \xc3(broken\n")


def test_symbols_and_control_characters_become_spaces(tmp_path):
    """Where the rebuild departs from the seed recipe: both KenLM tools must see the same words."""
    contexts = [(b"a</s>b <unk> c", b"x\x0by\x0cz\x00w\rv"), (b"<s>s", b"end")]
    write_split(tmp_path / "dev-0", 8, [b"g</s>", b"h"], contexts)
    out = tmp_path / "dev-0.txt"
    rebuild_split(tmp_path / "dev-0", out)
    assert out.read_bytes() == b"a b   c g  x y z w v\n s h end\n"


def test_crlf_line_ends_are_dropped(tmp_path):
    write_split(tmp_path / "dev-0", 4, [b"g1\r", b"g2\r"], [(b"l1", b"r1\r"), (b"l2", b"r2\r")])
    out = tmp_path / "dev-0.txt"
    rebuild_split(tmp_path / "dev-0", out)
    assert out.read_bytes() == b"l1 g1 r1\nl2 g2 r2\n"


def test_empty_split_is_an_error(tmp_path):
    write_split(tmp_path / "train", 8, [], [], final_newline=False)
    (tmp_path / "train/in.tsv.xz").write_bytes(lzma.compress(b""))
    with pytest.raises(LmgapError, match="train/in.tsv.xz has no lines"):
        rebuild_split(tmp_path / "train", tmp_path / "train.txt")
    assert not (tmp_path / "train.txt").exists()


def test_truncated_xz_names_the_file_and_leaves_nothing(tmp_path):
    contexts = [(b"word " * 200, b"more " * 200)] * 300
    write_split(tmp_path / "train", 8, [b"g"] * 300, contexts)
    data = (tmp_path / "train/in.tsv.xz").read_bytes()
    (tmp_path / "train/in.tsv.xz").write_bytes(data[: len(data) // 2])
    with pytest.raises(LmgapError, match="train/in.tsv.xz is corrupt or truncated"):
        rebuild_split(tmp_path / "train", tmp_path / "train.txt")
    assert not (tmp_path / "train.txt").exists()


def test_tab_in_a_gap_word_names_the_line(tmp_path):
    write_split(tmp_path / "dev-0", 8, [b"ok", b"two\twords"], [(b"x", b"y"), (b"z", b"w")])
    # The gap word is in expected.tsv, so that is the file and line named, not in.tsv.xz.
    with pytest.raises(LmgapError, match="^dev-0/expected.tsv line 2 has a tab in its gap word"):
        rebuild_split(tmp_path / "dev-0", tmp_path / "out.txt")
    assert not (tmp_path / "out.txt").exists()


def test_without_xz_the_lzma_module_gives_the_same_text(tmp_path, monkeypatch):
    write_split(tmp_path / "dev-0", 4, [b"a", b"b"], TRICKY_CONTEXTS[:2])
    recipe = seed_recipe(tmp_path / "dev-0", 4)
    # No xz on the PATH at all: the text can only come from the lzma module.
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    rebuild_split(tmp_path / "dev-0", tmp_path / "without.txt")
    assert (tmp_path / "without.txt").read_bytes() == recipe
    data = (tmp_path / "dev-0/in.tsv.xz").read_bytes()
    (tmp_path / "dev-0/in.tsv.xz").write_bytes(data[:-20])
    with pytest.raises(LmgapError, match="is corrupt or truncated"):
        rebuild_split(tmp_path / "dev-0", tmp_path / "broken.txt")


def test_a_line_of_empty_fields_is_a_document_with_empty_contexts_not_a_blank_line(tmp_path):
    # Every column of the second line empty: its tabs are there, so it is read, as before.
    write_split(tmp_path / "dev-0", 8, [b"a", b"b"], [(b"x", b"y"), (b"", b"")])
    assert [pair for block in read_contexts(tmp_path / "dev-0") for pair in block][1] == [b"", b""]
