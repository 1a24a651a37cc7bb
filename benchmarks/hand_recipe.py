"""The hand recipe the pipeline is measured against, spelled out once: rebuild a split's text with
`xzcat | paste | perl`, train with `lmplz`, binarise or not, score with `query`.

The tests run it to check the pipeline's numbers, benchmarks/compare.py to time it, and docs/text.md
shows its rebuild command; each takes the commands from here.
"""

import shlex
import subprocess

# The perl program of the seed recipe: escaped line breaks and <s> become spaces, and the text
# is `left gap right`, the contexts being the last two of in.tsv's columns after the pasted gap.
PERL_FIELDS = {8: "$f[7] $f[0] $f[8]", 4: "$f[3] $f[0] $f[4]"}


def perl_program(layout=8):
    return f'chomp;s/\\\\n/ /g;s/<s>/ /g;@f=split/\\t/;print "{PERL_FIELDS[layout]}\\n"'


def rebuild_command(split_dir, text, layout=8):
    """The shell command that rebuilds a split's text into the file text."""
    q = shlex.quote
    return (
        f"xzcat {q(f'{split_dir}/in.tsv.xz')} | paste {q(f'{split_dir}/expected.tsv')} - | "
        f"perl -ne {q(perl_program(layout))} > {q(str(text))}"
    )


def lmplz_command(lmplz, order, text, arpa, options=()):
    """lmplz as a person types it: the text on standard input, the ARPA model on standard output."""
    q = shlex.quote
    extra = "".join(f" {q(str(option))}" for option in options)
    return f"{q(str(lmplz))} -o {order} --skip_symbols{extra} < {q(str(text))} > {q(str(arpa))}"


def build_binary_command(build_binary, arguments, arpa, binary):
    """build_binary as a person types it: its options and type (e.g. `-q 8 -b 8 trie`), the ARPA model, the binary."""
    q = shlex.quote
    return " ".join(q(str(part)) for part in (build_binary, *arguments, arpa, binary))


def query_command(query, model, text):
    q = shlex.quote
    return f"{q(str(query))} {q(str(model))} < {q(str(text))}"


def summary(output):
    """query's summary lines as printed: {"Perplexity including OOVs": "976.99...", ...}."""
    printed = {}
    for line in output.splitlines():
        label, sep, value = line.rpartition(":\t")
        if sep:
            printed[label.rpartition("\t")[2]] = value
    return printed


def run(corpus, bin_dir, order, work, options=(), splits=("train", "dev-0"), layout=8, binary=None):
    """The whole recipe for one order: returns query's summary on the last split, as printed; binary: the
    arguments of build_binary before its files (the ARPA model is queried itself without them)."""
    train, scored = splits
    for split in splits:
        subprocess.run(["bash", "-c", rebuild_command(corpus / split, work / f"{split}.txt", layout)], check=True)
    arpa = work / f"model{order}.arpa"
    subprocess.run(
        lmplz_command(bin_dir / "lmplz", order, work / f"{train}.txt", arpa, options),
        shell=True,
        check=True,
        capture_output=True,
    )
    model = arpa
    if binary is not None:
        model = work / f"model{order}.binary"
        subprocess.run(
            build_binary_command(bin_dir / "build_binary", binary, arpa, model),
            shell=True,
            check=True,
            capture_output=True,
        )
    done = subprocess.run(
        query_command(bin_dir / "query", model, work / f"{scored}.txt"),
        shell=True,
        check=True,
        capture_output=True,
        text=True,
    )
    return summary(done.stdout)
