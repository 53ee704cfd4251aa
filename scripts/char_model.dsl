# The character-level transformer of scripts/char_transformer.dsl, on its own so that
# other programs (tests/onnx/export_models.dsl) build the very same model.
import nn

# Pre-norm blocks of causal self-attention and an MLP.
model Block(dim, heads) {
  ln1 = nn.LayerNorm([dim])
  attn = nn.MultiheadAttention(dim, heads, batch_first=true)
  ln2 = nn.LayerNorm([dim])
  mlp = nn.Sequential([nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim)])
  forward(x) {
    let h = self.ln1(x)
    let y = x + self.attn(h, h, h, need_weights=false, is_causal=true)[0]
    return y + self.mlp(self.ln2(y))
  }
}

model CharTransformer(vocab, dim, heads, seq) {
  tok = nn.Embedding(vocab, dim)
  pos = nn.Embedding(seq, dim)
  blocks = nn.Sequential([Block(dim, heads), Block(dim, heads)])
  ln = nn.LayerNorm([dim])
  head = nn.Linear(dim, vocab)
  # idx: [batch, t] character codes -> logits [batch, t, vocab]
  forward(idx) = self.head(self.ln(self.blocks(self.tok(idx) + self.pos(arange(idx.shape[1])))))
}

