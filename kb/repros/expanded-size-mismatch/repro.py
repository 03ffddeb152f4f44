"""Reproduce: "The expanded size of the tensor (20) must match the existing size (16) at non-singleton dimension 1".

Documents are tokenised without truncation and fed to a BERT-style encoder
whose position table has ``max_position_embeddings`` entries (16 in this tiny
config, 512 for BERT). BERT's embeddings expand a registered
``token_type_ids`` buffer of that length to the sequence length, and a buffer
of 16 cannot be expanded to 20.

CPU only, tiny model built from a config, no downloads (launcher: python).
"""

import sys

import torch
from transformers import BertConfig, BertModel

MAX_POSITIONS = 16


def main() -> int:
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=MAX_POSITIONS,
    )
    model = BertModel(config)
    documents = [torch.randint(1, 50, (n,)) for n in (12, 20)]
    input_ids = torch.nn.utils.rnn.pad_sequence(documents, batch_first=True)  # BUG: no truncation
    attention_mask = (input_ids != 0).long()
    out = model(input_ids=input_ids, attention_mask=attention_mask)
    print(out.last_hidden_state.shape)
    return 0


if __name__ == "__main__":
    sys.exit(main())
