"""lmgap: n-gram language-model experiments on the Challenging America word-gap corpus."""
