"""The challenge's own task: predict the gap word from both contexts, scored as GEval scores it."""
