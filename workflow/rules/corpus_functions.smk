# Where the corpus is read from and which of its files a run needs (rules in corpus.smk).
from lmgap.corpus.fetch import required_files
from lmgap.corpus.place import CLONE_DIR
from lmgap.corpus.place import corpus_root as lmgap_corpus_root
from lmgap.corpus.rebuild import header_path
from lmgap.models import SPLIT_TEXT


def corpus_root():
    return lmgap_corpus_root(config["corpus"])


def corpus_required_files():
    """{file: the config key that asks for it}."""
    return required_files(config["train_split"], config["eval_splits"], config["corpus"]["test_a"])


def corpus_is_local():
    """The corpus is read in place from a local directory, not cloned."""
    return corpus_root() != CLONE_DIR


def local_corpus_files(wildcards):
    """For a local directory, its files (and the in-header.tsv files that describe them) are
    inputs, so that editing one fetches again. Only those present: the fetch job names a missing
    one with the key that asks for it and the fix (onstart's check, before any job)."""
    if not corpus_is_local():
        return []
    headers = {header_path(corpus_root() / split) for split in CORPUS_SPLITS} - {None}
    files = [corpus_root() / name for name in corpus_required_files()]
    return [str(path) for path in files if path.is_file()] + sorted(map(str, headers))
