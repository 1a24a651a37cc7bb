"""Neural language models scored beside the n-grams: a byte-level BPE tokenizer, a GPT-2
architecture trained from scratch (or a user's Hugging Face model), and the sliding-window
evaluation that turns subword log-probabilities into KenLM's word-level record."""
