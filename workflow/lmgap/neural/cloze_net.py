"""The cloze network (context2vec's shape, Melamud et al., 2016): one GRU reads the words left of a
position from left to right, another the words right of it from right to left, and the word at the
position is predicted from both states, by an adaptive softmax (Grave et al., 2017) over the
vocabulary and the unknown-word class."""

import torch
from torch import nn

# Words beyond these ranks go to tail clusters of smaller projections: a large vocabulary costs
# little more than a small one.
CUTOFFS = (2000, 10000, 50000)
DIV_VALUE = 4.0


class ClozeNet(nn.Module):
    """words: vocabulary size; ids 0 (unknown) to words are classes, words + 1 and + 2 a line's
    start and end (lmgap.neural.cloze)."""

    def __init__(self, words, width, layers, dropout):
        super().__init__()
        # Sparse gradients: a step updates the vectors of the words its windows hold, not all of them
        # (at 100,000 words, 0.24 s a step on two cores against 0.45 with dense ones).
        self.embed = nn.Embedding(words + 3, width, sparse=True)
        self.drop = nn.Dropout(dropout)
        self.rightward = nn.GRU(width, width, num_layers=layers, batch_first=True)
        self.leftward = nn.GRU(width, width, num_layers=layers, batch_first=True)
        self.combine = nn.Sequential(nn.Linear(2 * width, width), nn.ReLU(), nn.Dropout(dropout))
        # PyTorch wants one cutoff at least: a small vocabulary's rarest word is a cluster of its own.
        cutoffs = [cut for cut in CUTOFFS if cut < words] or [words]
        self.out = nn.AdaptiveLogSoftmaxWithLoss(width, words + 1, cutoffs, div_value=DIV_VALUE)

    def window_states(self, ids):
        """The state predicting each inner position of windows (batch x length ids) from the words before
        it in the window and those after it: batch x (length - 2) x width."""
        embedded = self.drop(self.embed(ids))
        rightward, _ = self.rightward(embedded)
        leftward, _ = self.leftward(embedded.flip(1))
        return self.combine(torch.cat([rightward[:, :-2], leftward.flip(1)[:, 2:]], dim=-1))

    def gap_states(self, lefts, rights):
        """The state predicting each gap from its left words (id lists in reading order) and right words."""
        return self.combine(torch.cat([self._last(self.rightward, lefts), self._last(self.leftward, rights, True)], -1))

    def _last(self, rnn, sequences, reverse=False):
        """The state of rnn after each sequence (read in reverse if asked), each at its own length: the
        sequences of one length at once (a packed batch of them all took ten times as long on the CPU)."""
        device = self.embed.weight.device
        lengths = {}
        for row, ids in enumerate(sequences):
            lengths.setdefault(len(ids), []).append(row)
        states = torch.empty(len(sequences), rnn.hidden_size, device=device)
        for rows in lengths.values():
            ids = torch.tensor([sequences[row][::-1] if reverse else sequences[row] for row in rows], device=device)
            _, last = rnn(self.embed(ids))
            states[torch.tensor(rows, device=device)] = last[-1]
        return states

    def log_probabilities(self, states):
        """Natural-log probabilities of every class (0: unknown, then the vocabulary) per state, in double."""
        return self.out.log_prob(states).double()
