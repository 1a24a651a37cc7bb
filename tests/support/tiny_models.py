"""Tiny Hugging Face models with random weights and tokenizers trained on given text, saved with
save_pretrained as a user's would be: a GPT-2 (causal) and a BERT (masked)."""

import torch


def save_causal_model(folder, texts, vocab_size=400, positions=512, seed=5):
    """A GPT-2 of `positions` positions and a byte-level BPE of its own (a prefix space before
    the first word, unlike the pipeline's); returns (model, tokenizer)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<eos>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer=trainer)
    torch.manual_seed(seed)
    model = GPT2LMHeadModel(
        GPT2Config(
            vocab_size=tokenizer.get_vocab_size(),
            n_positions=positions,
            n_embd=32,
            n_layer=1,
            n_head=2,
            bos_token_id=0,
            eos_token_id=0,
        )
    )
    model.eval()
    model.save_pretrained(folder)
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<eos>")
    fast.save_pretrained(folder)
    return model, fast


def save_masked_model(folder, texts, vocab_size=400, positions=64, seed=6):
    """A BERT of `positions` positions with a WordPiece tokenizer (lower-cased, `##` pieces);
    returns (model, tokenizer)."""
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    trained = BertWordPieceTokenizer(lowercase=True)
    trained.train_from_iterator(texts, vocab_size=vocab_size, show_progress=False)
    tokenizer = BertTokenizerFast(
        tokenizer_object=trained._tokenizer,
        do_lower_case=True,
        unk_token="[UNK]",
        sep_token="[SEP]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        mask_token="[MASK]",
    )
    torch.manual_seed(seed)
    model = BertForMaskedLM(
        BertConfig(
            vocab_size=len(tokenizer),
            hidden_size=32,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=64,
            max_position_embeddings=positions,
        )
    )
    model.eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return model, tokenizer
