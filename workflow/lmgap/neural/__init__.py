"""Neural language models beside the n-grams (a GPT-2 trained here, or a user's Hugging Face model),
scored in sliding windows into KenLM's word-level record (docs/neural.md)."""
