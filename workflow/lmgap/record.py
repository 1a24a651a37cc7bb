"""The per-split record every model family writes, and every figure computed from its sums.

A model scored on a split leaves two files, written here whatever the family: `metrics.json`
(the model, the split, the family's own settings and `sums`: sentences, tokens, OOVs, log10 P,
log10 P of the OOV tokens, and per n-gram length the in-vocabulary tokens matched at that
length) and `documents.tsv` (the same sums per in.tsv line). The tables, plots, decades and
bootstrap intervals read these alone.

Names: `incl` counts every predicted token, out-of-vocabulary words scored as <unk>; `excl`
leaves out-of-vocabulary tokens out of both the log-probability and the count. Predicted tokens
are the words of each line plus its `</s>`, never `<s>`.
"""

import math

from .atomic import atomic_open, write_json

LOG2_10 = math.log2(10)
LN_10 = math.log(10)


def kenlm_perplexities(sums):
    """KenLM query's two perplexities, computed exactly as query computes them."""
    tokens, oovs = sums["tokens"], sums["oovs"]
    total, total_oov = sums["log10_prob"], sums["log10_prob_oov"]
    return {
        "perplexity_including_oovs": pow(10.0, -(total / tokens)),
        "perplexity_excluding_oovs": pow(10.0, -((total - total_oov) / (tokens - oovs))) if tokens > oovs else math.nan,
    }


def oovs_as_words_perplexity(sums, log10_share):
    """The perplexity with each OOV priced as one word of the run's vocabulary: its `<unk>`
    log10 P plus log10_share (see lmgap.corpus.vocabulary.log10_share), per token."""
    return pow(10.0, -((sums["log10_prob"] + sums["oovs"] * log10_share) / sums["tokens"]))


def srilm_perplexities(logprob, words, oovs, sentences, zeroprobs=0):
    """SRILM `ngram -ppl`: OOVs (and zero-probability words) leave the log-probability and the count;
    ppl divides by words plus one `</s>` per sentence, ppl1 by words alone."""
    counted = words - oovs - zeroprobs
    return {
        "srilm_ppl": pow(10.0, -logprob / (counted + sentences)) if counted + sentences else math.nan,
        "srilm_ppl1": pow(10.0, -logprob / counted) if counted else math.nan,
    }


def oov_rate(tokens, oovs):
    """Share of predicted tokens out of the vocabulary (One Billion Word benchmark convention)."""
    return oovs / tokens


def hit_ratios(matched_length, tokens):
    """Cumulative n-gram hit ratio per order k: the share of predicted tokens for which the model
    held an n-gram of length k or more. An OOV token is a miss at every order."""
    ratios = {}
    at_least = 0
    for k in range(len(matched_length) - 1, 0, -1):
        at_least += matched_length[k]
        ratios[k] = at_least / tokens
    return dict(sorted(ratios.items()))


def split_figures(sums):
    """All figures of one model on one split, as a flat dict of column name to value."""
    tokens, oovs, sentences = sums["tokens"], sums["oovs"], sums["sentences"]
    words = tokens - sentences
    log10 = {"incl": sums["log10_prob"], "excl": sums["log10_prob"] - sums["log10_prob_oov"]}
    counted = {"incl": tokens, "excl": tokens - oovs}
    figures = {
        **kenlm_perplexities(sums),
        "oovs": oovs,
        "tokens": tokens,
        "sentences": sentences,
        "words": words,
        "oov_rate": oov_rate(tokens, oovs),
    }
    for convention in ("incl", "excl"):
        n = counted[convention]
        figures[f"cross_entropy_bits_{convention}"] = -log10[convention] / n * LOG2_10 if n else math.nan
    for convention in ("incl", "excl"):
        figures[f"log10_likelihood_{convention}"] = log10[convention]
        figures[f"ln_likelihood_{convention}"] = log10[convention] * LN_10
    figures["likelihood_incl"] = 1 / figures["perplexity_including_oovs"]
    figures["likelihood_excl"] = 1 / figures["perplexity_excluding_oovs"]
    figures.update(srilm_perplexities(log10["excl"], words, oovs, sentences))
    for k, ratio in hit_ratios(sums["matched_length"], tokens).items():
        figures[f"hit_ratio_{k}"] = ratio
    return figures


DOCUMENT_COLUMNS = [
    "line",
    "tokens",
    "oovs",
    "log10_prob",
    "log10_prob_oov",
    "perplexity_including_oovs",
    "perplexity_excluding_oovs",
]


def write_documents(documents, path):
    """Per-document sums, one row per in.tsv line, floats in their exact shortest form."""
    with atomic_open(path, "w", newline="") as out:
        out.write("\t".join(DOCUMENT_COLUMNS) + "\n")
        for number, tokens, oovs, total, oov_sum in documents:
            # `</s>` is never out of the vocabulary, so tokens - oovs is at least 1.
            ppl = kenlm_perplexities({"tokens": tokens, "oovs": oovs, "log10_prob": total, "log10_prob_oov": oov_sum})
            incl, excl = ppl["perplexity_including_oovs"], ppl["perplexity_excluding_oovs"]
            out.write(f"{number}\t{tokens}\t{oovs}\t{total!r}\t{oov_sum!r}\t{incl!r}\t{excl!r}\n")


def write_split_record(record, documents, outputs):
    """Both files of a model's record of a split. record: model, split, the family's own
    settings and sums, to outputs' metrics; documents: each line's sums, to outputs' documents."""
    write_documents(documents, outputs["documents"])
    write_json(record, outputs["metrics"])
