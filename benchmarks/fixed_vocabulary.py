"""A fixed vocabulary, the One Billion Word benchmark's way, measured on a learning curve's texts:
would it make the OOV rates of training fractions equal?

    .venv/bin/python benchmarks/fixed_vocabulary.py RUN [--split dev-0] [--counts 1 2 3 5 10]

RUN is a folder `benchmarks/sweep.py curve` kept (its results/text/ holds the training split's
text, each fraction's sample and the scored split's). For each N, the fixed vocabulary is the
words seen at least N times in the whole training split; every other word would be mapped to one
placeholder in every text. Printed per N: the share of the scored split's tokens so mapped (the
same for every model), and for each fraction the share that are words of the fixed vocabulary
its sample never shows. lmplz cannot give a model a word its text lacks but through `<unk>`, so
those stay OOVs of that model: the OOV rates of the fractions differ by that share.
"""

import argparse
from collections import Counter
from pathlib import Path


def words(path):
    with open(path, "rb") as handle:
        for line in handle:
            yield from line.split()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--split", default="dev-0")
    parser.add_argument("--counts", type=int, nargs="+", default=[1, 2, 3, 5, 10])
    args = parser.parse_args()
    text = args.run / "results/text"
    counts = Counter(words(text / "train.txt"))
    scored = list(words(text / f"{args.split}.txt"))
    samples = {path.stem.split("-frac")[1]: set(words(path)) for path in sorted(text.glob("train-frac*.txt"))}
    print(f"{args.run}: {len(scored):,} tokens of {args.split}\n")
    print("| N | Fixed vocabulary | Tokens mapped | " + " | ".join(f"Unseen by {f}" for f in samples) + " |")
    print("|---:|---:|---:|" + "---:|" * len(samples))
    for least in args.counts:
        fixed = {word for word, count in counts.items() if count >= least}
        mapped = sum(word not in fixed for word in scored) / len(scored)
        unseen = [sum(word in fixed and word not in seen for word in scored) / len(scored) for seen in samples.values()]
        print(f"| {least} | {len(fixed):,} | {mapped:.2%} | " + " | ".join(f"{share:.2%}" for share in unseen) + " |")


if __name__ == "__main__":
    main()
