"""The record of each text the pipeline writes, and the check every job makes of the texts it reads."""

import json

import pytest

from lmgap import seals
from lmgap.corpus.textrecord import check_texts, record_path, write_text_record
from lmgap.errors import LmgapError


def written(tmp_path, name="dev-0.txt", text="a b c\nd e\n"):
    path = tmp_path / "results/text" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    write_text_record(path)
    return path


def test_a_text_is_recorded_by_its_bytes_lines_and_digest(tmp_path):
    path = written(tmp_path)
    record = json.loads(record_path(path).read_text())
    # sha256 of "a b c\nd e\n", by `sha256sum`.
    assert record == {
        "bytes": 10,
        "lines": 2,
        "sha256": "e2f5e5f03e610a675f57cc0a03360a77e6d1f72e000601d00167908a5e11efb1",
    }


@pytest.mark.parametrize("cut", ["a b c\n", "a b c\nd e\nf\n", ""])
def test_a_text_changed_since_it_was_written_is_refused_with_its_fix(tmp_path, cut):
    path = written(tmp_path)
    check_texts([str(path), str(tmp_path / "other.txt")])
    path.write_text(cut)
    with pytest.raises(LmgapError, match=rf"{path} is {len(cut)} bytes, but the job that wrote it wrote 10 .*Delete"):
        check_texts([str(path)])


def test_texts_without_a_record_and_other_files_are_taken_as_they_are(tmp_path):
    path = written(tmp_path, "train-frac0.1.txt")
    record_path(path).unlink()
    path.write_text("cut")
    check_texts([str(path)])
    other = tmp_path / "results/gap/dev-0.txt"
    other.parent.mkdir(parents=True)
    other.write_text("x")
    (other.with_suffix(".json")).write_text(json.dumps({"bytes": 5, "lines": 0, "sha256": ""}))
    check_texts([str(other)])


def test_a_damaged_record_names_its_text_too_which_its_fix_deletes_with_it(tmp_path):
    # Deleted alone, the record would not be written again while what was made from the text stands.
    path = written(tmp_path)
    record_path(path).write_text("")
    with pytest.raises(LmgapError, match=rf"{record_path(path)} is damaged \(.*\): delete it and {path}, and run"):
        check_texts([str(path)])


def test_a_record_changed_since_its_job_sealed_it_is_named_with_its_text(tmp_path, monkeypatch):
    # Its shape and the text's size kept (a line count retyped): only its seal tells.
    monkeypatch.chdir(tmp_path)
    path = written(tmp_path).relative_to(tmp_path)
    seals.seal([record_path(path)])
    check_texts([str(path)])
    record = record_path(path)
    record.write_text(record.read_text().replace('"lines": 2', '"lines": 3'))
    with pytest.raises(LmgapError, match=rf"{record} is damaged \(other bytes .*\): delete it and {path}, and run"):
        check_texts([str(path)])
