# _nn_pool: the pooling layers (max, average and adaptive, 1-D, 2-D and 3-D) and the
# max pools' inverses (MaxUnpool1d, 2d and 3d), with PyTorch's arguments. A max pool
# with return_indices=true returns (values, indices), each index flat over its plane
# (D * H * W, H * W, or L), as PyTorch's. The 3-D pools run as two 2-D pools (Note
# [Pools over volumes] in interp/builtins/composites/composite_spatial.cpp). nn re-exports them;
# import nn, not this module.

import _nn_init

let _per_dim = _nn_init._per_dim

# ---- windows of a fixed size (stride defaults to kernel_size) -------------------------

model MaxPool1d(kernel_size, stride=none, padding=0, dilation=1, return_indices=false, ceil_mode=false) {
  "1-D max pooling over [N, C, L]. Example: nn.MaxPool1d(2)"
  kernel_size = _per_dim(kernel_size, 1)
  stride = self.kernel_size if stride == none else _per_dim(stride, 1)
  padding = _per_dim(padding, 1)
  dilation = _per_dim(dilation, 1)
  return_indices = return_indices
  ceil_mode = ceil_mode
  forward(x) = max_pool1d(x, kernel_size=self.kernel_size, stride=self.stride, padding=self.padding,
                          dilation=self.dilation, ceil_mode=self.ceil_mode, return_indices=self.return_indices)
}

model MaxPool2d(kernel_size, stride=none, padding=0, dilation=1, return_indices=false, ceil_mode=false) {
  "2-D max pooling over [N, C, H, W] (stride defaults to kernel_size). Example: nn.MaxPool2d(2)"
  kernel_size = _per_dim(kernel_size, 2)
  stride = self.kernel_size if stride == none else _per_dim(stride, 2)
  padding = _per_dim(padding, 2)
  dilation = _per_dim(dilation, 2)
  return_indices = return_indices
  ceil_mode = ceil_mode
  forward(x) = max_pool2d(x, kernel_size=self.kernel_size, stride=self.stride, padding=self.padding,
                          dilation=self.dilation, ceil_mode=self.ceil_mode, return_indices=self.return_indices)
}

model AvgPool1d(kernel_size, stride=none, padding=0, ceil_mode=false, count_include_pad=true) {
  "1-D average pooling over [N, C, L]. Example: nn.AvgPool1d(2)"
  kernel_size = _per_dim(kernel_size, 1)
  stride = self.kernel_size if stride == none else _per_dim(stride, 1)
  padding = _per_dim(padding, 1)
  ceil_mode = ceil_mode
  count_include_pad = count_include_pad
  forward(x) = avg_pool1d(x, kernel_size=self.kernel_size, stride=self.stride, padding=self.padding,
                          ceil_mode=self.ceil_mode, count_include_pad=self.count_include_pad)
}

model AvgPool2d(kernel_size, stride=none, padding=0, ceil_mode=false, count_include_pad=true, divisor_override=none) {
  "2-D average pooling over [N, C, H, W] (stride defaults to kernel_size). Example: nn.AvgPool2d(2)"
  kernel_size = _per_dim(kernel_size, 2)
  stride = self.kernel_size if stride == none else _per_dim(stride, 2)
  padding = _per_dim(padding, 2)
  ceil_mode = ceil_mode
  count_include_pad = count_include_pad
  divisor_override = divisor_override
  forward(x) = avg_pool2d(x, kernel_size=self.kernel_size, stride=self.stride, padding=self.padding,
                          ceil_mode=self.ceil_mode, count_include_pad=self.count_include_pad,
                          divisor_override=self.divisor_override)
}

model MaxPool3d(kernel_size, stride=none, padding=0, dilation=1, return_indices=false, ceil_mode=false) {
  "3-D max pooling over [N, C, D, H, W] (stride defaults to kernel_size). Example: nn.MaxPool3d(2)"
  kernel_size = _per_dim(kernel_size, 3)
  stride = self.kernel_size if stride == none else _per_dim(stride, 3)
  padding = _per_dim(padding, 3)
  dilation = _per_dim(dilation, 3)
  return_indices = return_indices
  ceil_mode = ceil_mode
  forward(x) = max_pool3d(x, kernel_size=self.kernel_size, stride=self.stride, padding=self.padding,
                          dilation=self.dilation, ceil_mode=self.ceil_mode, return_indices=self.return_indices)
}

model AvgPool3d(kernel_size, stride=none, padding=0, ceil_mode=false, count_include_pad=true, divisor_override=none) {
  "3-D average pooling over [N, C, D, H, W] (stride defaults to kernel_size). Example: nn.AvgPool3d(2)"
  kernel_size = _per_dim(kernel_size, 3)
  stride = self.kernel_size if stride == none else _per_dim(stride, 3)
  padding = _per_dim(padding, 3)
  ceil_mode = ceil_mode
  count_include_pad = count_include_pad
  divisor_override = divisor_override
  forward(x) = avg_pool3d(x, kernel_size=self.kernel_size, stride=self.stride, padding=self.padding,
                          ceil_mode=self.ceil_mode, count_include_pad=self.count_include_pad,
                          divisor_override=self.divisor_override)
}

# ---- adaptive pools -----------------------------------------------------------------
# output_size windows tile each pooled dim (cell i covers [floor(i * in / out),
# ceil((i + 1) * in / out))), whatever the input's size; a none entry keeps that dim's
# size, as PyTorch's.

# The output size for x's last n dims: each none replaced by x's size there.
fn _adaptive_size(output_size, x, n) {
  let out = []
  for d in range(n) {
    let s = output_size[d]
    out.append(x.shape[x.ndim - n + d] if s == none else s)
  }
  return out
}

model AdaptiveAvgPool1d(output_size) {
  "Average pooling of [N, C, L] to output_size positions. Example: nn.AdaptiveAvgPool1d(1)"
  output_size = _per_dim(output_size, 1)
  forward(x) = adaptive_avg_pool1d(x, _adaptive_size(self.output_size, x, 1))
}

model AdaptiveAvgPool2d(output_size) {
  "Average pooling of [N, C, H, W] to an output_size grid (none keeps a dim). Example: nn.AdaptiveAvgPool2d([1, 1])"
  output_size = [output_size, output_size] if type(output_size) in ["int", "none"] else list(output_size)
  forward(x) = adaptive_avg_pool2d(x, _adaptive_size(self.output_size, x, 2))
}

# [N, C, L] pooled as a [N, C, 1, L] plane: the indices, flat over a 1 x L plane, are
# the positions along L.
model AdaptiveMaxPool1d(output_size, return_indices=false) {
  "Max pooling of [N, C, L] to output_size positions. Example: nn.AdaptiveMaxPool1d(4)"
  output_size = _per_dim(output_size, 1)
  return_indices = return_indices
  forward(x) {
    let r = adaptive_max_pool2d(x.unsqueeze(-2), [1] + _adaptive_size(self.output_size, x, 1), return_indices=true)
    let values = r[0].squeeze(-2)
    return (values, r[1].squeeze(-2)) if self.return_indices else values
  }
}

model AdaptiveMaxPool2d(output_size, return_indices=false) {
  "Max pooling of [N, C, H, W] to an output_size grid (none keeps a dim). Example: nn.AdaptiveMaxPool2d(1)"
  output_size = [output_size, output_size] if type(output_size) in ["int", "none"] else list(output_size)
  return_indices = return_indices
  forward(x) = adaptive_max_pool2d(x, _adaptive_size(self.output_size, x, 2), return_indices=self.return_indices)
}

model AdaptiveAvgPool3d(output_size) {
  "Average pooling of [N, C, D, H, W] to an output_size volume (none keeps a dim). Example: nn.AdaptiveAvgPool3d(1)"
  output_size = [output_size, output_size, output_size] if type(output_size) in ["int", "none"] else list(output_size)
  forward(x) = adaptive_avg_pool3d(x, _adaptive_size(self.output_size, x, 3))
}

model AdaptiveMaxPool3d(output_size, return_indices=false) {
  "Max pooling of [N, C, D, H, W] to an output_size volume (none keeps a dim). Example: nn.AdaptiveMaxPool3d(1)"
  output_size = [output_size, output_size, output_size] if type(output_size) in ["int", "none"] else list(output_size)
  return_indices = return_indices
  forward(x) = adaptive_max_pool3d(x, _adaptive_size(self.output_size, x, 3), return_indices=self.return_indices)
}

# ---- the max pools' inverses ---------------------------------------------------------
# Each value goes back to the cell its index names (a max pool's indices, flat over
# the plane), every other cell 0; the output is output_size (its last n entries), or
# what the pool's input was: (in - 1) * stride - 2 * padding + kernel_size per dim.
# A given size must be a pool's input that gives x: within the stride of that, as
# PyTorch checks. Differentiable in the values (scatter_add, whose gradient gathers).
fn _unpool(m, name, x, indices, output_size, n) {
  assert(list(indices.shape) == list(x.shape),
         f"{name}: indices must have the input's shape {list(x.shape)}, got {list(indices.shape)}")
  let size = []
  for d in range(n) {
    size.append((x.shape[x.ndim - n + d] - 1) * m.stride[d] - 2 * m.padding[d] + m.kernel_size[d])
  }
  if output_size != none {
    let given = list(output_size)[len(output_size) - n:]
    for d in range(n) {
      let (low, high) = (size[d] - m.stride[d], size[d] + m.stride[d])
      if given[d] <= low or given[d] >= high {
        fail(f"{name}: argument 'output_size' {given} must be within the stride of {size}, the size of the pool's input that gives this input's {list(x.shape)[x.ndim - n:]}: dim {d} must be between {low + 1} and {high - 1}, got {given[d]}")
      }
    }
    size = given
  }
  let lead = list(x.shape)[:x.ndim - n]
  let plane = 1
  for s in size { plane = plane * s }
  let flat_x = x.reshape(lead + [-1])
  let flat_i = indices.reshape(lead + [-1])
  assert(flat_i.numel() == 0 or (flat_i.min().item() >= 0 and flat_i.max().item() < plane),
         f"{name}: an index lies outside the output's plane of {plane} cells (output size {size})")
  # Overlapping windows share a maximum, so an index may come twice, with the same
  # value: the cell holds it once (the sum over the hits), while each input gets the
  # cell's whole gradient, as PyTorch's (the gradient of the sum).
  let d = len(lead)
  let summed = zeros(lead + [plane], dtype=x.dtype).scatter_add(d, flat_i, flat_x)
  let hits = zeros(lead + [plane], dtype=x.dtype).scatter_add(d, flat_i, ones(list(flat_x.shape), dtype=x.dtype))
  let out = summed - (summed - summed / clamp(hits, min=1.0)).detach()
  return out.reshape(lead + size)
}

model MaxUnpool1d(kernel_size, stride=none, padding=0) {
  "The inverse of MaxPool1d: values back at their indices, zeros elsewhere. Example: nn.MaxUnpool1d(2)(*nn.MaxPool1d(2, return_indices=true)(x))"
  kernel_size = _per_dim(kernel_size, 1)
  stride = self.kernel_size if stride == none else _per_dim(stride, 1)
  padding = _per_dim(padding, 1)
  forward(input, indices, output_size=none) = _unpool(self, "MaxUnpool1d", input, indices, output_size, 1)
}

model MaxUnpool2d(kernel_size, stride=none, padding=0) {
  "The inverse of MaxPool2d: values back at their indices, zeros elsewhere. Example: nn.MaxUnpool2d(2)(*nn.MaxPool2d(2, return_indices=true)(x))"
  kernel_size = _per_dim(kernel_size, 2)
  stride = self.kernel_size if stride == none else _per_dim(stride, 2)
  padding = _per_dim(padding, 2)
  forward(input, indices, output_size=none) = _unpool(self, "MaxUnpool2d", input, indices, output_size, 2)
}

model MaxUnpool3d(kernel_size, stride=none, padding=0) {
  "The inverse of MaxPool3d: values back at their indices, zeros elsewhere. Example: nn.MaxUnpool3d(2)(*nn.MaxPool3d(2, return_indices=true)(x))"
  kernel_size = _per_dim(kernel_size, 3)
  stride = self.kernel_size if stride == none else _per_dim(stride, 3)
  padding = _per_dim(padding, 3)
  forward(input, indices, output_size=none) = _unpool(self, "MaxUnpool3d", input, indices, output_size, 3)
}
