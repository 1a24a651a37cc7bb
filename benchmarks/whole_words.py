"""How many gap words a masked model can name with one mask: the share of a text's whitespace
tokens (raw, as expected.tsv holds gap words) that are one of its tokenizer's whole-word tokens.

    .venv/bin/python benchmarks/whole_words.py --tokenizer ~/models/bert FILE [FILE ...]

The rest are left to p0 (lmgap.neural.masked): words split into pieces, words with punctuation,
and for an uncased tokenizer every capitalised word. Prints the share as written and the share
if case did not matter, with the shares of capitalised and punctuated tokens.
"""

import argparse
from pathlib import Path


from lmgap.neural.masked import whole_words


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokenizer", required=True, help="a folder holding a saved tokenizer")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer, local_files_only=True)
    _, words = whole_words(tokenizer)
    vocabulary = set(words)
    tokens = [token for name in args.files for token in Path(name).read_text(errors="replace").split()]
    share = sum(token in vocabulary for token in tokens) / len(tokens)
    caseless = sum(token.lower() in vocabulary for token in tokens) / len(tokens)
    capitalised = sum(token[:1].isupper() for token in tokens) / len(tokens)
    punctuated = sum(not token.isalnum() for token in tokens) / len(tokens)
    print(
        f"{len(tokenizer):,} tokens, {len(words):,} of them whole words; {len(tokens):,} words of text: "
        f"{share:.1%} are whole-word tokens as written, {caseless:.1%} in lower case; "
        f"{capitalised:.1%} capitalised, {punctuated:.1%} with a character other than a letter or digit"
    )


if __name__ == "__main__":
    main()
