# nn.TransformerEncoder in eval mode without gradients, against PyTorch 1.13, which
# then runs the padded sequences as a nested tensor (the note above TransformerEncoder
# in stdlib/_nn_attention.dsl): zeros at padded positions, the output cut to the
# longest sequence, then the final norm; and the cases where one of PyTorch's
# conditions fails, which keep the usual output. Reference values:
# tests/stdlib/reference/make_encoder_nested.py.
import nn

let ref = load("tests/stdlib/reference/encoder_nested.safetensors")

fn encoder(name, nhead=2, norm=true, norm_first=false, nested=true, activation="relu") {
  let layer = nn.TransformerEncoderLayer(8, nhead, 16, dropout=0.0, batch_first=true, norm_first=norm_first,
                                         activation=activation)
  let m = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8) if norm else none, enable_nested_tensor=nested).double()
  let sd = {}
  for k in m.state_dict().keys() { sd[k] = ref[name + "." + k] }
  m.load_state_dict(sd)
  m.eval()
  return m
}

fn check(name, m, attn_mask=none) {
  let y = none
  no_grad { y = m(ref[name + ".x"], mask=attn_mask, src_key_padding_mask=ref[name + ".kpm"]) }
  let want = ref[name + ".y"]
  expect(y.shape == want.shape, f"{name}: shape {y.shape}, PyTorch's {want.shape}")
  expect_close(y, want, rtol=1e-10, atol=1e-12)
}

test "padding at the end: zeros there (the norm's bias after the norm), cut to the longest sequence" {
  check("end_padded", encoder("end_padded"))
  check("cut_to_longest", encoder("cut_to_longest"))
  check("no_norm_gelu", encoder("no_norm_gelu", norm=false, activation="gelu"))
  expect(ref["cut_to_longest.y"].shape == (3, 4, 8))
  check("float_mask", encoder("float_mask"))
}

test "PyTorch's usual output where one of its nested-path conditions fails" {
  check("padding_first", encoder("padding_first"))
  check("odd_heads", encoder("odd_heads", nhead=1))
  check("norm_first", encoder("norm_first", norm_first=true))
  check("not_nested", encoder("not_nested", nested=false))
  check("with_attn_mask", encoder("with_attn_mask"), zeros([5, 5], dtype=bool))
}

test "with gradients on, or in train mode, the output keeps every position" {
  let m = encoder("end_padded")
  let x = ref["end_padded.x"]
  let kpm = ref["end_padded.kpm"]
  let y = m(x, src_key_padding_mask=kpm)
  expect(y.shape == (3, 5, 8))
  expect(abs(y[1, 4]).sum() > 0)
  m.train()
  let yt = none
  no_grad { yt = m(x, src_key_padding_mask=kpm) }
  expect_close(yt, y.detach(), rtol=1e-12, atol=1e-12)
}
