"""Per-document scores: the documents each model finds hardest, and perplexity by decade."""

import math
from pathlib import Path

from ..files import DamagedRecord, read_table_record
from ..record import kenlm_perplexities
from .scores import read_scores
from .table import Column, Table

HARDEST = 10
EXCERPT = 80

MODEL = Column("model", "the model's name, as in perplexity.tsv", "Model", noted=False)
SPLIT = Column("split", "the split scored", "Split", noted=False)

DECADES_TABLE = Table(
    "decades.tsv",
    (
        MODEL,
        SPLIT,
        Column("decade", "the decade of publication, from the document's year (`unknown`: no usable year)", "Decade"),
        Column("documents", "the documents (lines) of that decade in the split", "Documents:"),
        Column(
            "perplexity_including_oovs",
            "the decade's perplexity including OOVs, from its documents' summed "
            "log10 P and tokens (not an average of document perplexities)",
            "PPL incl. OOVs:",
            "{:.2f}",
        ),
        Column(
            "perplexity_excluding_oovs",
            "the decade's perplexity excluding OOVs, the OOV tokens left out of the sum and the count",
            "PPL excl. OOVs:",
            "{:.2f}",
        ),
        Column("tokens", "the decade's tokens, words and one `</s>` per line", "Tokens:"),
        Column("oovs", "the decade's OOV tokens"),
    ),
    shown=(
        "model",
        "split",
        "decade",
        "documents",
        "tokens",
        "perplexity_including_oovs",
        "perplexity_excluding_oovs",
    ),
)
HARDEST_TABLE = Table(
    "hardest.tsv",
    (
        MODEL,
        SPLIT,
        Column("rank", f"the document's rank by perplexity including OOVs, 1 the hardest, down to {HARDEST}", "Rank:"),
        Column("line", "the document's line in the split's in.tsv.xz, counting from 1", "Line:"),
        Column(
            "year",
            "the document's year of publication, empty when unknown",
            "Year",
            cell=lambda row: row["year"][:4],
        ),
        Column("tokens", "the document's tokens, words and one `</s>`", "Tokens:"),
        Column("oovs", "the document's OOV tokens", "OOVs:"),
        Column("perplexity_including_oovs", "the document's perplexity including OOVs", "PPL incl. OOVs:", "{:.2f}"),
        Column("perplexity_excluding_oovs", "the document's perplexity excluding OOVs"),
        Column(
            "excerpt",
            f"the excerpt: the document's first {EXCERPT} characters of rebuilt text",
            "Beginning",
        ),
    ),
)


def read_years(path):
    """Each line's year (text, empty where unknown) from a split's years.tsv (a damaged one named, with the fix)."""

    def read(path):
        lines = Path(path).read_text().split("\n")
        if lines[0] != "year":
            raise DamagedRecord(path, f"its header is {lines[0]!r}, not 'year'")
        for number, year in enumerate(lines[1:-1], start=1):
            try:
                float(year or 0)
            except ValueError:
                raise DamagedRecord(path, f"row {number} is {year!r}, not a year") from None
        return lines[1:-1]

    return read_table_record(path, read)


def read_documents(path, years_path):
    """A model's per-document scores on a split, with each document's year (NaN when unknown); the two
    files hold a row per line of the split, and the one with fewer is named as damaged."""
    frame, years = read_scores(path), read_years(years_path)
    # A header alone: the corpus's layout has no year column.
    if not years:
        frame["year"] = math.nan
        return frame
    if len(years) < len(frame):
        raise DamagedRecord(years_path, f"it has {len(years):,} rows where {path} has {len(frame):,}")
    if len(frame) < len(years):
        raise DamagedRecord(path, f"it has {len(frame):,} rows where {years_path} has {len(years):,}")
    frame["year"] = [float(y) if y else math.nan for y in years]
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
            named = {"model": model, "split": split, "decade": decade, "documents": len(group)}
            rows.append(named | sums | kenlm_perplexities(sums))
    return DECADES_TABLE.frame(rows)


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
            year = "" if math.isnan(doc.year) else repr(doc.year)
            rows.append(
                doc._asdict() | {"model": model, "split": split, "rank": rank, "year": year, "excerpt": text[doc.line]}
            )
    return HARDEST_TABLE.frame(rows)


# Without a year column no decade has a row: the table says why instead.
NO_YEARS = (
    "Perplexity by decade\n\nThe evaluated splits have no year column: neither their own "
    "in-header.tsv nor the corpus's top-level one names a Year column.\n"
)


def write_document_tables(inputs, outputs):
    """decades.tsv and .md, hardest.tsv and .md (outputs: decades_tsv, decades_md, hardest_tsv, hardest_md) from
    inputs' documents, years and texts (see load_all_documents; texts: results/text/{split}.txt)."""
    documents = load_all_documents(inputs["documents"], inputs["years"])
    decades = decade_frame(documents)
    markdown = DECADES_TABLE.markdown(decades, "Perplexity by decade of publication") if len(decades) else NO_YEARS
    DECADES_TABLE.write(decades, {"tsv": outputs["decades_tsv"], "md": outputs["decades_md"]}, markdown)
    hardest = hardest_frame(documents, {Path(path).stem: path for path in inputs["texts"]})
    markdown = HARDEST_TABLE.markdown(hardest, "Documents each model finds hardest (highest perplexity incl. OOVs)")
    HARDEST_TABLE.write(hardest, {"tsv": outputs["hardest_tsv"], "md": outputs["hardest_md"]}, markdown)


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
