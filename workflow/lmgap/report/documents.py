"""Per-document scores: the documents each model finds hardest, and perplexity by decade."""

import math
from pathlib import Path

import pandas as pd

from ..atomic import atomic_open
from ..errors import LmgapError
from ..record import DOCUMENT_COLUMNS, kenlm_perplexities
from .markdown import definition_lines, markdown_table

HARDEST = 10
EXCERPT = 80

# The meaning of decades.tsv's and hardest.tsv's columns, one sentence each and in the tables'
# order, for their Markdown notes.
DECADE_DEFINITIONS = {
    "model": "the model's name, as in perplexity.tsv",
    "split": "the split scored",
    "decade": "the decade of publication, from the document's year (`unknown`: no usable year)",
    "documents": "the documents (lines) of that decade in the split",
    "perplexity_including_oovs": "the decade's perplexity including OOVs, from its documents' summed "
    "log10 P and tokens (not an average of document perplexities)",
    "perplexity_excluding_oovs": "the decade's perplexity excluding OOVs, the OOV tokens left out of "
    "the sum and the count",
    "tokens": "the decade's tokens, words and one `</s>` per line",
    "oovs": "the decade's OOV tokens",
}
HARDEST_DEFINITIONS = {
    "model": "the model's name, as in perplexity.tsv",
    "split": "the split scored",
    "rank": f"the document's rank by perplexity including OOVs, 1 the hardest, down to {HARDEST}",
    "line": "the document's line in the split's in.tsv.xz, counting from 1",
    "year": "the document's year of publication, empty when unknown",
    "tokens": "the document's tokens, words and one `</s>`",
    "oovs": "the document's OOV tokens",
    "perplexity_including_oovs": "the document's perplexity including OOVs",
    "perplexity_excluding_oovs": "the document's perplexity excluding OOVs",
    "excerpt": f"the excerpt: the document's first {EXCERPT} characters of rebuilt text",
}


def read_documents(path, years_path):
    """A model's per-document scores on a split, with each document's year (NaN when unknown)."""
    frame = pd.read_csv(path, sep="\t", dtype={c: "int64" for c in DOCUMENT_COLUMNS[:3]})
    with open(years_path) as handle:
        years = handle.read().split("\n")[1:-1]
    if years and len(years) != len(frame):
        raise LmgapError(f"{years_path} has {len(years)} rows but {path} has {len(frame)}; delete both and rerun")
    frame["year"] = [float(y) if y else math.nan for y in years] if years else math.nan
    return frame


def decade_of(year):
    return "unknown" if math.isnan(year) else f"{int(year // 10 * 10)}s"


def decade_frame(documents):
    """documents: {(model, split): frame}. One row per model, split and decade, perplexities
    from the decade's summed log-probabilities (not an average of document perplexities)."""
    rows = []
    for (model, split), frame in documents.items():
        if frame["year"].isna().all():
            continue
        for decade, group in frame.groupby(frame["year"].map(decade_of), sort=True):
            # fsum is exact: a decade's figures do not depend on the order of its documents.
            sums = {
                "tokens": int(group["tokens"].sum()),
                "oovs": int(group["oovs"].sum()),
                "log10_prob": math.fsum(group["log10_prob"]),
                "log10_prob_oov": math.fsum(group["log10_prob_oov"]),
            }
            rows.append(
                {
                    "model": model,
                    "split": split,
                    "decade": decade,
                    "documents": len(group),
                    **kenlm_perplexities(sums),
                    "tokens": sums["tokens"],
                    "oovs": sums["oovs"],
                }
            )
    return pd.DataFrame(rows, columns=list(DECADE_DEFINITIONS))


def excerpts(text_path, lines, width=EXCERPT):
    """The first characters of the given lines (numbered from 1) of a rebuilt text."""
    wanted, found = set(lines), {}
    with open(text_path, "rb") as text:
        for number, line in enumerate(text, start=1):
            if number in wanted:
                found[number] = " ".join(line.decode("utf-8", "replace").split())[:width]
                if len(found) == len(wanted):
                    break
    return found


def hardest_frame(documents, texts, count=HARDEST):
    """The count documents of highest perplexity (incl. OOVs) per model and split; ties by line."""
    rows = []
    for (model, split), frame in documents.items():
        top = frame.sort_values(["perplexity_including_oovs", "line"], ascending=[False, True], kind="stable")
        top = top.head(count)
        text = excerpts(texts[split], top["line"].tolist())
        for rank, doc in enumerate(top.itertuples(index=False), start=1):
            rows.append(
                {
                    "model": model,
                    "split": split,
                    "rank": rank,
                    "line": doc.line,
                    "year": "" if math.isnan(doc.year) else repr(doc.year),
                    "tokens": doc.tokens,
                    "oovs": doc.oovs,
                    "perplexity_including_oovs": doc.perplexity_including_oovs,
                    "perplexity_excluding_oovs": doc.perplexity_excluding_oovs,
                    "excerpt": text[doc.line],
                }
            )
    return pd.DataFrame(rows, columns=list(HARDEST_DEFINITIONS))


def _write_tsv(frame, path):
    out = frame.copy()
    for column in ("perplexity_including_oovs", "perplexity_excluding_oovs"):
        out[column] = out[column].map(repr)
    with atomic_open(path, newline="") as handle:
        out.to_csv(handle, sep="\t", index=False, lineterminator="\n")


DECADES_SHOWN = [
    ("Decade", "decade"),
    ("Documents", "documents"),
    ("Tokens", "tokens"),
    ("PPL incl. OOVs", "perplexity_including_oovs"),
    ("PPL excl. OOVs", "perplexity_excluding_oovs"),
]
HARDEST_SHOWN = [
    ("Rank", "rank"),
    ("Line", "line"),
    ("Year", "year"),
    ("Tokens", "tokens"),
    ("OOVs", "oovs"),
    ("PPL incl. OOVs", "perplexity_including_oovs"),
    ("Beginning", "excerpt"),
]


def decade_markdown(frame):
    if frame.empty:
        return (
            "Perplexity by decade\n\nThe evaluated splits have no year column: neither their own "
            "in-header.tsv nor the corpus's top-level one names a Year column.\n"
        )
    rows = [
        [
            row.model,
            row.split,
            row.decade,
            row.documents,
            row.tokens,
            f"{row.perplexity_including_oovs:.2f}",
            f"{row.perplexity_excluding_oovs:.2f}",
        ]
        for row in frame.itertuples(index=False)
    ]
    return markdown_table(
        "Perplexity by decade of publication",
        ["Model", "Split", "Decade", "Documents:", "Tokens:", "PPL incl. OOVs:", "PPL excl. OOVs:"],
        rows,
        "\n".join(
            [
                "Definitions (every figure is in `decades.tsv`):",
                "",
                *definition_lines(DECADES_SHOWN, DECADE_DEFINITIONS.get),
            ]
        ),
    )


def hardest_markdown(frame):
    rows = [
        [
            row.model,
            row.split,
            row.rank,
            row.line,
            row.year[:4] if row.year else "",
            row.tokens,
            row.oovs,
            f"{row.perplexity_including_oovs:.2f}",
            row.excerpt,
        ]
        for row in frame.itertuples(index=False)
    ]
    return markdown_table(
        "Documents each model finds hardest (highest perplexity incl. OOVs)",
        ["Model", "Split", "Rank:", "Line:", "Year", "Tokens:", "OOVs:", "PPL incl. OOVs:", "Beginning"],
        rows,
        "\n".join(
            [
                "Definitions (every figure is in `hardest.tsv`):",
                "",
                *definition_lines(HARDEST_SHOWN, HARDEST_DEFINITIONS.get),
            ]
        ),
    )


def write_document_tables(documents, texts, decades_tsv, decades_md, hardest_tsv, hardest_md):
    decades = decade_frame(documents)
    hardest = hardest_frame(documents, texts)
    _write_tsv(decades, decades_tsv)
    _write_tsv(hardest, hardest_tsv)
    with atomic_open(decades_md) as handle:
        handle.write(decade_markdown(decades))
    with atomic_open(hardest_md) as handle:
        handle.write(hardest_markdown(hardest))


def load_all_documents(document_paths, years_paths):
    """{(model, split): frame} from results/eval/{model}/{split}.documents.tsv files and the
    splits' results/text/{split}.years.tsv."""
    years = {Path(path).name.removesuffix(".years.tsv"): path for path in years_paths}
    documents = {}
    for path in document_paths:
        path = Path(path)
        split = path.name.removesuffix(".documents.tsv")
        documents[(path.parent.name, split)] = read_documents(path, years[split])
    return documents
