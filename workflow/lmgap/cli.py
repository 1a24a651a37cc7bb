"""The `lmgap` command: `lmgap score OUT_TSV EXPECTED_TSV [--bits N]` and `lmgap submit CLONE`."""

import argparse
import json
import re
import shlex
import sys
from pathlib import Path

import yaml

from .commands import send_submission
from .configcheck import validate_config
from .errors import LmgapError
from .files import committed_unchanged
from .gap.geval import DEFAULT_BITS, read_lines, score_lines, strip, token_warnings
from .gap.gonito import changed_params, copy_into, flat
from .preflight import BEHIND, UNSEEN
from .schema import SCHEMA


# A word:probability token, of which every line of an out.tsv holds some and an expected.tsv none.
SCORED_TOKEN = re.compile(r"(^|\s)\S*:[0-9.]+(e-?[0-9]+)?(\s|$)")


def score(args):
    out_lines, expected_lines = read_lines(args.out), read_lines(args.expected)
    # (GEval strips the spaces and tabs around an expected word: one within it is a column's end.)
    tabbed = next((number for number, line in enumerate(expected_lines, start=1) if "\t" in strip(line)), None)
    if tabbed:
        # (An in.tsv given for its expected.tsv: every line a document, its gap word nowhere in it.)
        columns = strip(expected_lines[tabbed - 1]).count("\t") + 1
        beside = Path(args.expected).with_name("expected.tsv")
        instead = f": give {shlex.quote(str(beside))}" if beside.is_file() and beside != Path(args.expected) else ""
        raise LmgapError(
            f"{args.expected} line {tabbed} holds {columns} tab-separated columns, where an expected.tsv holds one "
            f"gap word a line: is it the split's in.tsv? lmgap score takes OUT_TSV, then the split's expected.tsv"
            f"{instead}"
        )
    try:
        metrics, _ = score_lines(out_lines, expected_lines, args.bits, str(args.out), str(args.expected))
    except LmgapError as err:
        if any(map(SCORED_TOKEN.search, expected_lines)) and not any(map(SCORED_TOKEN.search, out_lines)):
            # The two files given the other way round: the one read as expected.tsv holds the predictions.
            swapped = f"lmgap score {shlex.quote(str(args.expected))} {shlex.quote(str(args.out))}"
            raise LmgapError(
                f"{args.expected} holds word:probability tokens and {args.out} none: the two are given the other way "
                f"round? lmgap score takes OUT_TSV first, then EXPECTED_TSV: {swapped}"
            ) from err
        raise
    for warning in token_warnings(out_lines, args.out):
        print(f"lmgap score: warning: {warning}", file=sys.stderr)
    for name, value in metrics.items():
        print(f"{name}\t{value!r}")


def read_config(path):
    """The settings of the config file path, or {} where it does not read as a mapping."""
    try:
        given = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError):
        return {}
    return given if isinstance(given, dict) else {}


def with_defaults(given):
    """A config's settings with the defaults of those it leaves out, as a run reads it; as given where the
    schema refuses it (the run would refuse it too)."""
    from snakemake.exceptions import WorkflowError

    try:
        return validate_config(given, SCHEMA)
    except (LmgapError, WorkflowError):
        return given


def submit(args):
    # The run's config.yaml, beside results/: one changed since the run made the submission, which is stale.
    config = Path(args.submission).resolve().parent.parent / "config.yaml"
    given = read_config(config)
    # With the gap task off no run makes a submission: running the pipeline would not help.
    gap_off = flat(given).get("gap.enabled") is False
    if gap_off and not (Path(args.submission) / "gonito.yaml").is_file():
        raise LmgapError(
            f"{config} sets gap.enabled: false, so no run makes a submission: set gap.enabled: true and run the "
            "pipeline, then submit what it makes"
        )
    changed = changed_params(with_defaults(given), args.submission)
    if changed and not args.despite_config:
        # A run given --config makes a submission its config.yaml does not describe: so said, it is copied.
        if ("gap.enabled", False) in changed:
            raise LmgapError(
                f"{config} sets gap.enabled: false, so no run makes a submission, and the one in "
                f"{args.submission} is an earlier run's: set gap.enabled: true and run the pipeline, or copy that "
                "earlier one with --despite-config; nothing was copied"
            )
        settings = ", ".join(
            f"{key}: {json.dumps(value)}" + ("" if key in flat(given) else " (its default: no line sets it)")
            for key, value in changed
        )
        # (A run given --touch, or one without Snakemake's records, left results a plain run makes none of again.)
        marked = [config.parent / marker for marker in (BEHIND, UNSEEN) if (config.parent / marker).is_file()]
        run = f"with --forceall ({marked[0]} says a plain run makes nothing again)" if marked else "first"
        raise LmgapError(
            f"{config} sets {settings}, which the submission in {args.submission} was not made with: run the "
            f"pipeline {run} (its submission follows the config), then submit what it makes; for the submission "
            "of a run given --config, add --despite-config; nothing was copied"
        )
    files = copy_into(args.submission, args.clone)
    if all(committed_unchanged(args.clone, path) for path in files):
        print(
            f"{args.clone} holds this submission already, committed ({', '.join(map(str, files))}): nothing "
            "to send; a commit not pushed yet goes with git push from there"
        )
        return
    print(f"copied {', '.join(map(str, files))} into {args.clone}; to send them:")
    for line in send_submission(args.clone, files):
        print(f"  {line}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="lmgap", description="Tools of the lmgap pipeline.")
    commands = parser.add_subparsers(dest="command", required=True)
    scorer = commands.add_parser(
        "score",
        help="score an out.tsv of the word-gap challenge as GEval does",
        description="Print GEval's LogLossHashed, LikelihoodHashed and PerplexityHashed of OUT_TSV "
        "against EXPECTED_TSV, and the top-1 (Accuracy) and top-10 accuracy of its listed words, "
        "one `Name<TAB>value` line each, every digit kept.",
    )
    scorer.add_argument("out", metavar="OUT_TSV")
    scorer.add_argument("expected", metavar="EXPECTED_TSV")
    scorer.add_argument(
        "--bits", type=int, default=DEFAULT_BITS, help=f"2^bits hash buckets (GEval's default: {DEFAULT_BITS})"
    )
    submitter = commands.add_parser(
        "submit",
        help="copy the pipeline's submission into a clone of the challenge",
        description="Copy results/submission/ (the blend's out.tsv of every predicted split and "
        "gonito.yaml) into CLONE, a git clone of the challenge, after checking that each out.tsv has "
        "a line per line of the clone's in.tsv.xz; then print the git commands that send it.",
    )
    submitter.add_argument("clone", metavar="CLONE")
    submitter.add_argument(
        "--submission", default="results/submission", help="the submission folder (default: results/submission)"
    )
    submitter.add_argument(
        "--despite-config",
        action="store_true",
        help="copy a submission that the run's config.yaml sets other settings than (a run given --config)",
    )
    args = parser.parse_args(argv)
    if args.command == "score" and not 1 <= args.bits <= 24:
        parser.error("--bits must be between 1 and 24")
    try:
        {"score": score, "submit": submit}[args.command](args)
    except LmgapError as err:
        print(f"lmgap {args.command}: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"lmgap {args.command}: cannot use {err.filename}: {err.strerror}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
