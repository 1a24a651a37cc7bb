"""Where the corpus lies: a folder of the user's, or the pipeline's clone of a git source. Apart
from the fetch, so that every job can find its split without running the fetch's code."""

from pathlib import Path

CLONE_DIR = Path("resources/corpus/clone")


def is_url(source):
    """True for git URLs (scheme://...), false for local directories."""
    return "://" in source


def corpus_root(corpus):
    """Where the corpus files are, from the `corpus` config: the clone for git URLs and pinned
    commits, else the local folder itself."""
    if is_url(corpus["source"]) or corpus["commit"]:
        return CLONE_DIR
    return Path(corpus["source"])
