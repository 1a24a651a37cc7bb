"""The gap task's systems: each scored prediction as a record of what makes it and the files that
follow from it. The rules expand these records and never take a system's name apart."""

from dataclasses import dataclass

from ..errors import LmgapError
from ..ngram.formats import PROBING

# Every system's prediction and its summary, whichever rule writes them (gap_predictions,
# gap_unigram, gap_neural, gap_masked, gap_cloze, gap_document, gap_blend).
OUT = "results/gap/{system}/{split}/out.tsv"
STATS = "results/gap/stats/{system}/{split}.json"


@dataclass(frozen=True)
class System:
    """family: ngram, neural, cloze, document, blend or baseline; model: its name (document, blend,
    unigram for one-system families); context: both, left or none; order: an n-gram's; kind: a neural
    model's, causal or masked."""

    family: str
    model: str
    context: str
    order: int | None = None
    kind: str | None = None

    @property
    def name(self):
        """The {system} wildcard and its folder: context/model, or the baseline's model alone."""
        return self.model if self.context == "none" else f"{self.context}/{self.model}"

    def out(self, split):
        return OUT.format(system=self.name, split=split)

    def stats(self, split):
        return STATS.format(system=self.name, split=split)

    def described(self):
        """What gap.tsv says of it."""
        row = {"model": self.model, "family": self.family, "order": self.order, "context": self.context}
        return {**row, "kind": self.kind} if self.family == "neural" else row


BASELINE = System("baseline", "unigram", "none")
BLEND = System("blend", "blend", "both")


class GapSystems:
    """The systems a config asks for. ngrams: {name: options} of the n-grams trained on the whole
    training split (as the candidates are); neural: {name: kind} (causal, masked or cloze); document:
    whether the family is on; binary: the binary format of the n-grams the blend mixes and the causal models
    rescore (gap.format; every format's n-grams predict and are scored)."""

    def __init__(self, ngrams, neural, document, binary=PROBING):
        self.ngrams, self.neural, self.document = dict(ngrams), dict(neural), document
        self.binary = binary

    def _predictions(self, contexts, formats=None):
        """Each n-gram (of the formats, or all) and the document family with each of the contexts, each neural
        model that predicts gaps (the masked ones, and the causal ones when an n-gram gives them candidates),
        and each cloze model."""
        chosen = [name for name in sorted(self.ngrams) if formats is None or self._format(name) in formats]
        ngrams = [(name, context) for name in chosen for context in contexts]
        kinds = {"masked": True, "causal": bool(self.ngrams), "cloze": False}
        neural = [name for name in sorted(self.neural) if kinds[self.neural[name]]]
        cloze = [name for name in sorted(self.neural) if self.neural[name] == "cloze"]
        return [
            *(System("ngram", name, context, order=self.ngrams[name]["order"]) for name, context in ngrams),
            *(System("neural", name, "both", kind=self.neural[name]) for name in neural),
            *(System("cloze", name, "both") for name in cloze),
            *(System("document", "document", context) for context in contexts if self.document),
        ]

    def members(self):
        """Every system the blend mixes: each n-gram, neural and cloze model and the document family with
        both contexts, and the context-free baseline."""
        return [*self._predictions(["both"], [self.binary]), BASELINE]

    def blend(self):
        """The blend, which needs two members at least (the baseline and one model), or None."""
        return BLEND if len(self.members()) >= 2 else None

    def all(self):
        """Every scored prediction, in gap.tsv's order: each n-gram and the document family with both
        contexts and the left alone, each neural and cloze model, the blend, and the baseline."""
        return [*self._predictions(["both", "left"]), *([BLEND] if self.blend() else []), BASELINE]

    def named(self, name):
        """The system of a {system} wildcard."""
        systems = {system.name: system for system in self.all()}
        if name not in systems:
            raise LmgapError(f"{name} is no gap system of the current config (systems: {', '.join(systems)})")
        return systems[name]

    def rescoring_base(self):
        """The n-gram whose prediction gives the causal models their candidates: the highest unpruned
        order (highest pruned if none), with KenLM's unigrams where both are trained; or None."""
        ngrams = [name for name in self.ngrams if self._format(name) == self.binary]
        if not ngrams:
            return None

        def preference(name):
            options = self.ngrams[name]
            return not any(options["prune"]), options["order"], options.get("interpolate_unigrams", True)

        return max(ngrams, key=preference)

    def _format(self, name):
        return self.ngrams[name].get("format", PROBING)

    def models_of(self, system):
        """The n-gram models whose binaries a system's predictions come from."""
        if system.family == "ngram":
            return [system.model]
        if system.family == "neural" and system.kind == "causal":
            return [self.rescoring_base()]
        if system.family == "blend":
            return [model for member in self.members() for model in self.models_of(member)]
        return []
