"""Every command a message gives a user to paste, each path quoted for the shell: a folder named with
a space, a quote or `$(...)` stays one word, never code. A file is named by its absolute path, which
works wherever it is pasted (a run with --directory names files from its working folder). Messages
build their commands here alone."""

import os
import shlex
from pathlib import Path


def quoted(path):
    return shlex.quote(str(path))


def quoted_file(path):
    return quoted(os.path.abspath(path))


def _replace(make, path):
    """`MAKE > PATH.new && mv PATH.new PATH`: a file rewritten in place, never half-written."""
    new = f"{path}.new"
    return f"{make} > {quoted_file(new)} && mv {quoted_file(new)} {quoted_file(path)}"


def recompress(path, reader):
    """A file of another compression (reader: zcat, bzcat, zstdcat) as xz, in place. Read to a file of
    its own first, not piped into xz: a pipe's status is xz's, so a reader that failed on damaged data
    would have an empty file moved over the user's. A failed read leaves neither the copy nor a zero status."""
    plain = quoted_file(f"{path}.plain")
    steps = f"{reader} {quoted_file(path)} > {plain} && xz {plain} && mv {quoted_file(f'{path}.plain.xz')} "
    steps += quoted_file(path)
    return f"{{ {steps}; }} || {{ rm -f {plain}; false; }}"


def compress(path):
    """A plain-text file as xz, in place."""
    return _replace(f"xz -c {quoted_file(path)}", path)


def decompress_once(path):
    """An xz file compressed twice, as xz once, in place."""
    return _replace(f"xz -dc {quoted_file(path)}", path)


def latin1_to_utf8(path):
    """A Latin-1 text file as UTF-8, in place."""
    return _replace(f"iconv -f latin1 -t utf-8 {quoted_file(path)}", path)


def remove(path):
    """A file or a folder removed, with what it holds."""
    return f"rm -r -- {quoted_file(path)}"


def move_aside(path):
    """A file or a folder moved beside itself, under the name with .aside added, what it holds kept."""
    return f"mv -- {quoted_file(path)} {quoted_file(f'{path}.aside')}"


def clear_the_way(path):
    """A folder or file where the run keeps the other, cleared: one that holds anything moved aside (it may be the
    user's own), an empty one removed."""
    path = Path(path)
    if (path.is_dir() and any(path.iterdir())) or (path.is_file() and path.stat().st_size):
        return f"move it aside, keeping what it holds: {move_aside(path)}"
    return f"remove it: {remove(path)}"


def config_option(setting, value):
    """The option that gives a setting (a dotted key: KEY.SUB) the value text, --config, which takes no dot in a
    key: nested as a mapping. Put last on a command line (--config takes every word after it)."""
    *sections, key = setting.split(".")
    given = value
    for name in reversed([*sections[1:], key] if sections else []):
        given = f'{{"{name}": {given}}}'
    return f"--config {quoted(f'{sections[0] if sections else key}={given}')}"


def run_pipeline(folder):
    """The run of the pipeline that writes the results of the run folder folder anew: the repository's own
    folder runs its Snakefile; another, given by --directory, is named (with the repository's Snakefile, so
    that it works pasted anywhere)."""
    snakefile = Path(__file__).resolve().parents[2] / "Snakefile"
    if Path(folder).resolve() == snakefile.parent:
        return "snakemake --cores 8"
    return f"snakemake --cores 8 --snakefile {quoted(snakefile)} --directory {quoted_file(folder)}"


def send_submission(clone, files):
    """The git commands that send a submission's files, copied into a clone of the challenge."""
    added = " ".join(quoted(path) for path in files)
    return [
        f"cd {quoted_file(clone)} && git add {added}",
        'git commit -m "lmgap blend" && git push  # to your branch of the challenge at gonito.net',
    ]
