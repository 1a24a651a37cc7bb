"""gonito.yaml says of the code what the run's record says, and `lmgap submit` copies a submission
only into a clone of the corpus it predicted, losing nothing of the clone's own."""

import json
import lzma
import shutil
import subprocess

import pytest
import yaml

from lmgap import cli
from lmgap.errors import LmgapError
from lmgap.files import sha256
from lmgap.gap.gonito import copy_into, describe, write_submission

EXPERIMENT = {"eval_splits": ["dev-0"], "gap": {"enabled": True}, "neural": {}}
# The blend's record, as lmgap.gap.blend writes it.
WEIGHTS = {
    "members": ["both/o3", "unigram"],
    "weights": {"both/o3": 0.6, "unigram": 0.4},
    "fold_weights": [],
    "method": "EM",
    "fit_gaps": 2,
    "fit_log_loss_hashed": {"both/o3": 1.0, "unigram": 2.0, "blend": 0.9},
}


def test_the_description_names_the_commit_and_says_when_the_checkout_had_changes():
    commit = "e4b787da9743c20f68f7d06c9dc5159bafc6a0db"
    lmgap = {"version": "0.1.0", "code": "c0de", "commit": commit}
    clean, _ = describe({"experiment": EXPERIMENT, "lmgap": {**lmgap, "uncommitted_changes": False}}, WEIGHTS)
    edited, _ = describe({"experiment": EXPERIMENT, "lmgap": {**lmgap, "uncommitted_changes": True}}, WEIGHTS)
    assert clean.endswith("(lmgap 0.1.0 at git commit e4b787da9743)")
    assert edited.endswith("(lmgap 0.1.0 at git commit e4b787da9743 with uncommitted changes)")


def xz(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    with lzma.open(path, "wt") as handle:
        handle.write("".join(f"x\t{line}\tleft\tright\n" for line in lines))


def git(clone, *args):
    subprocess.run(["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True)


@pytest.fixture
def submission_and_clone(tmp_path):
    """A submission of dev-0 and test-A made by write_submission from a run's record, and a git
    clone of the corpus it predicted."""
    clone = tmp_path / "clone"
    for split in ("dev-0", "test-A"):
        xz(clone / split / "in.tsv.xz", ["a", "b"])
    git(clone, "init", "-q")
    git(clone, "add", ".")
    git(clone, "commit", "-qm", "the challenge")
    outs = {}
    for split in ("dev-0", "test-A"):
        outs[split] = tmp_path / f"{split}.out.tsv"
        outs[split].write_text("the:0.5 :0.5\nof:0.5 :0.5\n")
    files = {f"{split}/in.tsv.xz": {"sha256": sha256(clone / split / "in.tsv.xz")} for split in outs}
    (tmp_path / "provenance.json").write_text(
        json.dumps(
            {"experiment": EXPERIMENT, "lmgap": {"version": "0.1.0", "code": "c0de"}, "corpus": {"files": files}}
        )
    )
    (tmp_path / "weights.json").write_text(json.dumps(WEIGHTS))
    inputs = {"weights": [tmp_path / "weights.json"], "provenance": tmp_path / "provenance.json"}
    # In a run folder, as a run writes it (RUN/results/submission, RUN/config.yaml).
    submission = tmp_path / "run/results/submission"
    write_submission(outs, inputs, {"gonito": submission / "gonito.yaml"})
    (tmp_path / "run/config.yaml").write_text(yaml.safe_dump(EXPERIMENT))
    return submission, clone


def test_a_clone_whose_split_is_not_the_one_predicted_is_refused_by_its_digest(submission_and_clone):
    submission, clone = submission_and_clone
    # The same number of lines, other words: the line count cannot tell.
    xz(clone / "test-A/in.tsv.xz", ["c", "d"])
    git(clone, "commit", "-qam", "another test-A")
    with pytest.raises(LmgapError, match=r"test-A/in.tsv.xz is not the test-A/in.tsv.xz the submission predicted"):
        copy_into(submission, clone)
    assert not (clone / "gonito.yaml").exists() and not (clone / "dev-0/out.tsv").exists()


def test_the_clone_s_own_uncommitted_work_is_never_overwritten(submission_and_clone):
    submission, clone = submission_and_clone
    (clone / "dev-0/out.tsv").write_text("my notes\n")
    with pytest.raises(LmgapError, match=r"dev-0/out.tsv holds changes that are not committed"):
        copy_into(submission, clone)
    assert (clone / "dev-0/out.tsv").read_text() == "my notes\n" and not (clone / "gonito.yaml").exists()
    # Committed, git keeps it: the copy replaces it.
    git(clone, "add", "dev-0/out.tsv")
    git(clone, "commit", "-qm", "notes")
    copied = copy_into(submission, clone)
    assert [str(path) for path in copied] == ["gonito.yaml", "dev-0/out.tsv", "test-A/out.tsv"]
    assert (clone / "dev-0/out.tsv").read_bytes() == (submission / "dev-0/out.tsv").read_bytes()


@pytest.mark.parametrize(
    "damage",
    [
        # Cut short mid-line: a line count that counts the unfinished line cannot tell.
        lambda text: text[:-3],
        lambda text: text.rstrip("\n"),
        lambda text: text.replace("the:0.5", "the:0.6"),
    ],
)
def test_a_submission_file_changed_since_the_run_is_refused_and_nothing_copied(submission_and_clone, damage):
    submission, clone = submission_and_clone
    out = submission / "test-A/out.tsv"
    out.write_text(damage(out.read_text()))
    with pytest.raises(LmgapError, match=r"test-A/out.tsv is not the file the run wrote .*nothing was copied"):
        copy_into(submission, clone)
    assert not (clone / "gonito.yaml").exists() and not (clone / "dev-0/out.tsv").exists()
    with open(submission / "gonito.yaml", "a") as handle:
        handle.write("# my notes\n")
    with pytest.raises(LmgapError, match=r"gonito.yaml is not the file the run wrote"):
        copy_into(submission, clone)


def test_a_split_the_pipeline_does_not_predict_is_named_as_such(submission_and_clone):
    submission, clone = submission_and_clone
    xz(clone / "test-B/in.tsv.xz", ["a", "b"])
    with pytest.raises(LmgapError, match=r"has test-B/in.tsv.xz, a split the pipeline does not predict"):
        copy_into(submission, clone)


def own_file(clone, relative, committed):
    """Work of the user's own at a path the copy writes: committed to the clone's git, then edited,
    or never added."""
    path = clone / relative
    if committed:
        path.write_text("my first notes\n")
        git(clone, "add", relative)
        git(clone, "commit", "-qm", "notes")
    path.write_text("my notes\n")


# Every class of clone a submission must not be copied into, and what the refusal says.
FAULTS = {
    "another test-A, as many lines": (
        lambda clone: xz(clone / "test-A/in.tsv.xz", ["c", "d"]),
        "is not the test-A/in.tsv.xz the submission predicted",
    ),
    "a dev-0 one line shorter": (
        lambda clone: xz(clone / "dev-0/in.tsv.xz", ["a"]),
        r"has 2 lines but .*in.tsv.xz has 1:",
    ),
    "a damaged dev-0": (
        lambda clone: (clone / "dev-0/in.tsv.xz").write_bytes(b"\xfd7zXZ\x00 cut"),
        "dev-0/in.tsv.xz is corrupt or truncated",
    ),
    "no dev-0": (lambda clone: shutil.rmtree(clone / "dev-0"), "has no dev-0/in.tsv.xz"),
    "no clone at all": (lambda clone: shutil.rmtree(clone), r"is no folder \(it does not exist\): give the folder"),
    "a file for the clone": (
        lambda clone: (shutil.rmtree(clone), clone.write_text("notes\n")),
        r"is no folder: give the folder of a clone",
    ),
    "a split it does not predict": (
        lambda clone: xz(clone / "test-B/in.tsv.xz", ["a"]),
        "a split the pipeline does not predict",
    ),
    "a split the run did not score": (
        lambda clone: xz(clone / "dev-1/in.tsv.xz", ["a"]),
        "the submission has no dev-1/out.tsv",
    ),
    **{
        f"{relative} of its own, {'edited' if committed else 'untracked'}": (
            lambda clone, relative=relative, committed=committed: own_file(clone, relative, committed),
            f"{relative} holds changes that are not committed",
        )
        for relative in ("gonito.yaml", "dev-0/out.tsv", "test-A/out.tsv")
        for committed in (True, False)
    },
    "a folder where the copy writes dev-0/out.tsv": (
        lambda clone: (clone / "dev-0/out.tsv/notes").mkdir(parents=True),
        "dev-0/out.tsv is a folder, where the copy writes a file",
    ),
    # gonito takes a submission as a git push: a plain folder (a copy of the corpus, say) is refused.
    "no git repository": (
        lambda clone: shutil.rmtree(clone / ".git"),
        "is no git repository with a commit: give the folder of a clone of the challenge",
    ),
}


def test_a_folder_inside_a_clone_is_refused_naming_the_clone(submission_and_clone):
    submission, clone = submission_and_clone
    before = files_of(clone)
    with pytest.raises(LmgapError) as refused:
        copy_into(submission, clone / "dev-0")
    assert str(refused.value) == (
        f"{clone / 'dev-0'} is a folder inside the git repository at {clone.resolve()}, not its top: give "
        f"{clone.resolve()}, the clone's own folder; nothing was copied"
    )
    assert files_of(clone) == before
    # A plain folder inside a repository of another kind (no split of the challenge at its top): no clone to name.
    other = clone.parent / "other"
    shutil.copytree(clone / ".git", other / ".git")
    (other / "notes").mkdir()
    with pytest.raises(LmgapError, match="is no git repository with a commit: give the folder of a clone"):
        copy_into(submission, other / "notes")


def files_of(clone):
    return {path: path.read_bytes() for path in clone.rglob("*") if path.is_file() and ".git" not in path.parts}


@pytest.mark.parametrize("fault", FAULTS)
def test_every_class_of_clone_not_to_copy_into_is_refused_and_left_as_it_was(submission_and_clone, fault):
    submission, clone = submission_and_clone
    change, says = FAULTS[fault]
    change(clone)
    before = files_of(clone) if clone.is_dir() else clone.exists() and clone.read_bytes()
    with pytest.raises(LmgapError, match=says):
        copy_into(submission, clone)
    assert (files_of(clone) if clone.is_dir() else clone.exists() and clone.read_bytes()) == before


def without(name):
    return lambda text: json.dumps({key: value for key, value in json.loads(text).items() if key != name})


@pytest.mark.parametrize(
    "file, damage, why",
    [
        ("gonito.yaml", lambda text: "", None),
        ("gonito.yaml", lambda text: "params: [\n", None),
        ("inputs.json", lambda text: text[: len(text) // 2], r"Expecting|Unterminated"),
        ("inputs.json", lambda text: "", "Expecting value"),
        ("inputs.json", lambda text: "{}", "it has no sha256 of gonito.yaml"),
        ("inputs.json", lambda text: "[]", "not a record of sha256 sums"),
        ("inputs.json", lambda text: json.dumps({**json.loads(text), "gonito.yaml": 7}), "not a record of sha256 sums"),
        ("inputs.json", without("test-A/out.tsv"), "it has no sha256 of test-A/out.tsv"),
        ("inputs.json", without("dev-0/in.tsv.xz"), "it has no sha256 of dev-0/in.tsv.xz"),
    ],
)
def test_a_damaged_gonito_yaml_or_record_is_named_with_the_fix_and_nothing_copied(
    submission_and_clone, file, damage, why
):
    submission, clone = submission_and_clone
    path = submission / file
    path.write_text(damage(path.read_text()))
    before = files_of(clone)
    # gonito.yaml's own damage is told by its sha256 before it is read; the record's by its shape.
    said = rf"{file} is not the file the run wrote" if why is None else rf"{file} is damaged \(.*({why})"
    with pytest.raises(LmgapError, match=said + r".*: delete .*submission and run the pipeline again") as err:
        copy_into(submission, clone)
    assert str(err.value).endswith("to write the submission anew; nothing was copied")
    assert files_of(clone) == before


def test_a_submission_without_its_record_of_inputs_is_refused(submission_and_clone):
    submission, clone = submission_and_clone
    (submission / "inputs.json").unlink()
    before = files_of(clone)
    with pytest.raises(LmgapError, match=r"has no inputs.json, the record of the inputs it predicted: run the pipel"):
        copy_into(submission, clone)
    assert files_of(clone) == before
    # A copy outside any run folder: no run writes it anew, and no run command is made up for it.
    copy = submission.parents[2] / "copied"
    shutil.copytree(submission, copy)
    with pytest.raises(LmgapError) as refused:
        copy_into(copy, clone)
    assert str(refused.value).endswith(
        f"give --submission the results/submission of the run that made it ({copy} is no run folder's "
        "results/submission, which a run writes anew)"
    )
    assert "snakemake" not in str(refused.value) and files_of(clone) == before


def test_a_second_submit_of_what_the_clone_holds_committed_says_so_and_prints_nothing_to_send(
    submission_and_clone, capsys
):
    submission, clone = submission_and_clone
    assert cli.main(["submit", str(clone), "--submission", str(submission)]) == 0
    first = capsys.readouterr().out
    assert "to send them:" in first and "git commit" in first
    git(clone, "add", ".")
    git(clone, "commit", "-qm", "lmgap blend")
    assert cli.main(["submit", str(clone), "--submission", str(submission)]) == 0
    second = capsys.readouterr().out
    assert "holds this submission already, committed" in second and "git add" not in second
    assert "git commit" not in second


def test_a_submit_after_a_setting_changed_is_refused_unless_asked_and_a_comment_changes_nothing(
    submission_and_clone, capsys
):
    made, clone = submission_and_clone
    run = made.parent / "run"
    submission = run / "results/submission"
    shutil.copytree(made, submission)
    before = files_of(clone)
    (run / "config.yaml").write_text("eval_splits: [dev-1]\nneural: {}\n")
    assert cli.main(["submit", str(clone), "--submission", str(submission)]) == 2
    said = capsys.readouterr().err
    assert f'{run / "config.yaml"} sets eval_splits: ["dev-1"], which the submission in {submission} was not' in said
    assert "run the pipeline first" in said and "nothing was copied" in said and files_of(clone) == before
    # After a run given --touch (its marker left), a plain run makes nothing again: --forceall is the fix.
    marker = run / "results/.behind-settings"
    marker.write_text("# --touch\neval_splits\n")
    assert cli.main(["submit", str(clone), "--submission", str(submission)]) == 2
    assert (
        f"run the pipeline with --forceall ({marker} says a plain run makes nothing again)" in capsys.readouterr().err
    )
    marker.unlink()
    # With the gap task off and no submission ever made: said so, not "a run writes it".
    empty = run / "results/none"
    empty.mkdir()
    (run / "config.yaml").write_text("gap:\n  enabled: false\n")
    assert cli.main(["submit", str(clone), "--submission", str(empty)]) == 2
    assert "sets gap.enabled: false, so no run makes a submission: set gap.enabled: true" in capsys.readouterr().err
    # With the gap task off, no run makes one: running the pipeline is no fix.
    (run / "config.yaml").write_text("gap:\n  enabled: false\n")
    assert cli.main(["submit", str(clone), "--submission", str(submission)]) == 2
    said = capsys.readouterr().err
    assert "sets gap.enabled: false, so no run makes a submission" in said and "--despite-config" in said
    (run / "config.yaml").write_text("eval_splits: [dev-1]\nneural: {}\n")
    # The submission of a run given --config: copied where asked.
    assert cli.main(["submit", str(clone), "--submission", str(submission), "--despite-config"]) == 0
    assert files_of(clone) != before
    # The settings it was made with, a comment added and settings it does not record (a path) aside: nothing said.
    (run / "config.yaml").write_text("# my sweep\neval_splits: [dev-0]\nkenlm: {bin_dir: /opt/kenlm}\n")
    assert cli.main(["submit", str(clone), "--submission", str(submission)]) == 0
    assert "lmgap submit" not in capsys.readouterr().err


def test_a_setting_whose_line_was_deleted_is_compared_at_its_default(submission_and_clone, capsys):
    # Made with gap.top_k: 50; the line then deleted, so the config takes the default, 100, again.
    submission, clone = submission_and_clone
    root = submission.parents[2]
    experiment = {**EXPERIMENT, "gap": {"enabled": True, "top_k": 50}}
    provenance = json.loads((root / "provenance.json").read_text())
    (root / "provenance.json").write_text(json.dumps({**provenance, "experiment": experiment}))
    outs = {split: root / f"{split}.out.tsv" for split in ("dev-0", "test-A")}
    inputs = {"weights": [root / "weights.json"], "provenance": root / "provenance.json"}
    write_submission(outs, inputs, {"gonito": submission / "gonito.yaml"})
    (root / "run/config.yaml").write_text(yaml.safe_dump(EXPERIMENT))
    before = files_of(clone)
    assert cli.main(["submit", str(clone), "--submission", str(submission)]) == 2
    said = capsys.readouterr().err
    assert "sets gap.top_k: 100 (its default: no line sets it), which the submission in" in said
    assert files_of(clone) == before
    (root / "run/config.yaml").write_text(yaml.safe_dump(experiment))
    assert cli.main(["submit", str(clone), "--submission", str(submission)]) == 0


def test_a_new_submission_replaces_the_one_an_earlier_submit_copied_and_nobody_committed(submission_and_clone, capsys):
    submission, clone = submission_and_clone
    assert cli.main(["submit", str(clone), "--submission", str(submission)]) == 0
    # A new run makes another submission: the clone's uncommitted copy is lmgap's own, and is replaced.
    root = submission.parents[2]
    (root / "dev-0.out.tsv").write_text("of:0.5 :0.5\nthe:0.5 :0.5\n")
    outs = {split: root / f"{split}.out.tsv" for split in ("dev-0", "test-A")}
    inputs = {"weights": [root / "weights.json"], "provenance": root / "provenance.json"}
    write_submission(outs, inputs, {"gonito": submission / "gonito.yaml"})
    assert cli.main(["submit", str(clone), "--submission", str(submission)]) == 0
    assert (clone / "dev-0/out.tsv").read_text() == "of:0.5 :0.5\nthe:0.5 :0.5\n"
    # One the user changed since is theirs: refused, nothing copied.
    (clone / "dev-0/out.tsv").write_text("my own\n")
    (root / "dev-0.out.tsv").write_text("the:0.5 :0.5\nof:0.5 :0.5\n")
    write_submission(outs, inputs, {"gonito": submission / "gonito.yaml"})
    assert cli.main(["submit", str(clone), "--submission", str(submission)]) == 2
    assert "holds changes that are not committed" in capsys.readouterr().err
    assert (clone / "dev-0/out.tsv").read_text() == "my own\n"
