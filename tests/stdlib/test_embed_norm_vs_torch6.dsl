# Round 6 against PyTorch 1.13, lookup and normalization layers with their options
# crossed: Embedding with a negative padding_idx, max_norm under each norm_type (the
# weight it renormalizes in place is compared after the call), scale_grad_by_freq;
# EmbeddingBag's modes x include_last_offset x padding_idx, per_sample_weights,
# scale_grad_by_freq; LayerNorm without affine over two dims and with affine over
# three, GroupNorm, InstanceNorm1d/2d/3d with affine x track_running_stats in train and
# eval (running stats moved, as PyTorch's, only where it tracks and trains),
# LocalResponseNorm of even and odd sizes on 3-, 4- and 5-D inputs, BatchNorm with
# track_running_stats=false in train and eval and with momentum=none (the cumulative
# average). Each case loads tests/stdlib/reference/layers_vs_torch6.safetensors
# (written by tests/stdlib/reference/make_layers_vs_torch6.py, embed_norm_cases, under
# the same name) and compares outputs, buffers and the gradients of sum(y0 * g).
import nn
import "vs_torch2_check.inc" as vt

let ref = load("tests/stdlib/reference/layers_vs_torch6.safetensors")
fn check(name, m, n=1, run=none) = vt.check_in(ref, name, m, n, run if run != none else fn(m, xs) = [m(xs[0])])
fn check_bag(name, m) = check(name, m, 2, fn(m, xs) = [m(xs[0], xs[1])])

test "Embedding: negative padding_idx, scale_grad_by_freq" {
  check("emb_pad_neg", nn.Embedding(7, 3, padding_idx=-2))
  check("emb_pad_neg_freq", nn.Embedding(7, 3, padding_idx=-1, scale_grad_by_freq=true))
  check("emb_freq", nn.Embedding(7, 3, scale_grad_by_freq=true))
}

test "Embedding max_norm renormalizes the rows it reads in place, under norm_type 1, 2, 3 and inf" {
  for (p, tag) in [[1.0, "1"], [2.0, "2"], [3.0, "3"], [float("inf"), "inf"]] {
    check(f"emb_max_norm_p{tag}", nn.Embedding(7, 4, max_norm=1.1, norm_type=p))
  }
  check("emb_max_norm_pad_freq", nn.Embedding(7, 4, max_norm=0.9, padding_idx=1, scale_grad_by_freq=true))
}

test "EmbeddingBag: sum/mean/max x include_last_offset x padding_idx; scale_grad_by_freq" {
  for mode in ["sum", "mean", "max"] {
    for last in [false, true] {
      for pad in [none, 4] {
        let name = f"bag_{mode}" + ("_last" if last else "") + ("_pad" if pad != none else "")
        check_bag(name, nn.EmbeddingBag(10, 3, mode=mode, include_last_offset=last, padding_idx=pad))
      }
    }
    if mode != "max" { check_bag(f"bag_{mode}_freq", nn.EmbeddingBag(10, 3, mode=mode, scale_grad_by_freq=true)) }
  }
}

# PyTorch 1.13's CPU embedding_bag misplaces the counts (Note [Gradients scaled by
# frequency]): the reference is the bags reduced from embedding(scale_grad_by_freq=true).
test "EmbeddingBag scale_grad_by_freq with padding_idx; F.embedding's scale_grad_by_freq" {
  check_bag("bag_mean_freq_pad", nn.EmbeddingBag(10, 3, mode="mean", scale_grad_by_freq=true, padding_idx=2))
  check("emb_fn_freq_pad", none, 2, fn(m, xs) = [embedding(xs[0], xs[1], padding_idx=5, scale_grad_by_freq=true)])
  expect_error(fn() = nn.EmbeddingBag(10, 3, mode="max", scale_grad_by_freq=true),
               "does not support scale_grad_by_freq")
}

test "EmbeddingBag per_sample_weights with include_last_offset and padding_idx, and on a 2-D input" {
  check("bag_sum_psw_last_pad", nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=true, padding_idx=2), 3,
        fn(m, xs) = [m(xs[0], xs[1], per_sample_weights=xs[2])])
  check("bag_sum_psw_2d", nn.EmbeddingBag(10, 3, mode="sum"), 2, fn(m, xs) = [m(xs[0], per_sample_weights=xs[1])])
}

test "LayerNorm without affine over two dims, with affine over three; GroupNorm" {
  check("layernorm_noaffine_2d", nn.LayerNorm([3, 5], elementwise_affine=false, eps=1e-3))
  check("layernorm_affine_3d", nn.LayerNorm([4, 3, 5]))
  check("groupnorm_noaffine", nn.GroupNorm(2, 4, affine=false, eps=1e-3))
  check("groupnorm_1d", nn.GroupNorm(4, 4))
  check("groupnorm_unbatched_ok", nn.GroupNorm(1, 4))
}

test "InstanceNorm1d/2d/3d: affine x track_running_stats x train/eval" {
  let layers = [nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d]
  for dims in [1, 2, 3] {
    for affine in [false, true] {
      for track in [false, true] {
        for train in [true, false] {
          let name = (f"instnorm{dims}d" + ("_affine" if affine else "") + ("_track" if track else "")
                      + ("_eval" if not train else ""))
          let m = layers[dims - 1](3, affine=affine, track_running_stats=track, momentum=0.3)
          m.train(train)
          check(name, m)
        }
      }
    }
  }
  check("instnorm1d_unbatched", nn.InstanceNorm1d(3, affine=true))
}

test "LocalResponseNorm: sizes 1 to 4 on 4-D input, and 3-D and 5-D inputs" {
  for size in [1, 2, 3, 4] { check(f"lrn_{size}", nn.LocalResponseNorm(size, alpha=0.3, beta=0.6, k=1.5)) }
  check("lrn_3d_input", nn.LocalResponseNorm(3))
  check("lrn_5d_input", nn.LocalResponseNorm(2, alpha=0.5))
}

test "BatchNorm: track_running_stats=false in train and eval, momentum=none, a 2-D input in eval" {
  for (d, make) in [["1d", nn.BatchNorm1d], ["2d", nn.BatchNorm2d]] {
    for train in [true, false] {
      let tag = "" if train else "_eval"
      let a = make(3, track_running_stats=false)
      a.train(train)
      check(f"bn{d}_notrack{tag}", a)
      let b = make(3, affine=false, track_running_stats=false)
      b.train(train)
      check(f"bn{d}_noaffine_notrack{tag}", b)
    }
    check(f"bn{d}_cumulative", make(3, momentum=none))
  }
  let e = nn.BatchNorm1d(3)
  e.eval()
  check("bn1d_2d_input_eval", e)
}
