"""Score predictions against a split's gap words: GEval's metrics and how often the word was a candidate."""

from ..atomic import atomic_open, write_json
from ..errors import LmgapError
from ..files import DamagedRecord
from .candidate_sets import CandidateSets
from .coverage import found
from .geval import DEFAULT_BITS, parse_line, ranked_words, read_lines, score_lines


def evaluate(inputs, expected_path, variant, outputs):
    """GEval's metrics, top-1/top-10 accuracy and candidate recall (outputs.metrics) of inputs.out, and each line's
    natural-log probability of its word (outputs.lines, for per-document comparisons); inputs.candidates: [] or one."""
    expected = read_lines(expected_path)
    try:
        out_lines = read_lines(inputs.out)
        metrics, per_line = score_lines(out_lines, expected, DEFAULT_BITS, str(inputs.out), str(expected_path))
    except LmgapError as err:
        # The prediction is the pipeline's own: GEval's refusal, less the fix it gives a user's file.
        why = str(err).rsplit("; ", 1)[0].removeprefix(f"{inputs.out} ")
        raise DamagedRecord(inputs.out, why) from None
    # Candidate recall: among the variant's candidates or, without candidate sets, the words listed.
    if inputs.candidates:
        hits = found(CandidateSets.load(inputs.candidates[0]), [word.encode("utf-8") for word in expected], variant)
    else:
        hits = [
            word in ranked_words(parse_line(line) if ":" in line else None) for word, line in zip(expected, out_lines)
        ]
    recall = sum(hits) / len(expected) if expected else 0.0
    write_json(
        {"bits": DEFAULT_BITS, "gaps": len(expected), "metrics": metrics, "candidate_recall": recall}, outputs.metrics
    )
    with atomic_open(outputs.lines, "w") as out:
        out.write("line\tlog_probability\n")
        for number, value in enumerate(per_line, start=1):
            out.write(f"{number}\t{value!r}\n")
