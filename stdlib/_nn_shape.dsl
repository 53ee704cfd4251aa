# _nn_shape: layers that resample, pad or reshape, with PyTorch's names and arguments:
# Upsample (and UpsamplingNearest2d, UpsamplingBilinear2d), the padding layers
# (ZeroPad, ConstantPad, ReflectionPad, ReplicationPad, CircularPad in 1-, 2- and 3-D),
# Flatten, Unflatten, PixelShuffle, PixelUnshuffle, ChannelShuffle, Unfold, Fold and
# Identity. nn re-exports them (and the function channel_shuffle); import nn, not this
# module.
import _nn_init

let _prod = _nn_init._prod

# ---- resampling -------------------------------------------------------------------

# Resizes the spatial dims (interpolate): give size or scale_factor.
model Upsample(size=none, scale_factor=none, mode="nearest", align_corners=none, recompute_scale_factor=none) {
  "Upsamples [N, C, W], [N, C, H, W] or [N, C, D, H, W] to size or by scale_factor (nearest, bilinear, ...). Example: nn.Upsample(scale_factor=2)"
  size = size
  scale_factor = scale_factor
  mode = mode
  align_corners = align_corners
  recompute_scale_factor = recompute_scale_factor
  forward(x) = interpolate(x, size=self.size, scale_factor=self.scale_factor, mode=self.mode,
                           align_corners=self.align_corners, recompute_scale_factor=self.recompute_scale_factor)
}

model UpsamplingNearest2d(size=none, scale_factor=none) {
  "Nearest-neighbour upsampling of [N, C, H, W]. Example: nn.UpsamplingNearest2d(scale_factor=2)"
  size = size
  scale_factor = scale_factor
  forward(x) = interpolate(x, size=self.size, scale_factor=self.scale_factor, mode="nearest")
}

# Bilinear with align_corners=true, as PyTorch's (its deprecated layer's choice).
model UpsamplingBilinear2d(size=none, scale_factor=none) {
  "Bilinear upsampling of [N, C, H, W] with the corners aligned. Example: nn.UpsamplingBilinear2d(scale_factor=2)"
  size = size
  scale_factor = scale_factor
  forward(x) = interpolate(x, size=self.size, scale_factor=self.scale_factor, mode="bilinear", align_corners=true)
}

# ---- padding ------------------------------------------------------------------------
# padding: an int for every side, or [left, right] (1-D), [left, right, top, bottom]
# (2-D), [left, right, top, bottom, front, back] (3-D): pad()'s order, the last dim
# first.

fn _sides(name, padding, n) {
  let sides = [padding] * (2 * n) if type(padding) == "int" else list(padding)
  assert(len(sides) == 2 * n, f"{name}: padding must be an int or {2 * n} ints, got {padding}")
  return sides
}

# A padding layer of n dims padding by pad()'s `mode` (value for "constant").
fn _pad_fields(m, name, padding, n, mode, value) {
  m.padding = _sides(name, padding, n)
  m.mode = mode
  m.value = value
  return m
}
fn _pad_forward(m, x) = pad(x, m.padding, mode=m.mode, value=m.value) if m.mode == "constant" else pad(x, m.padding, mode=m.mode)

model ZeroPad1d(padding) {
  "Pads the last dim with zeros. Example: nn.ZeroPad1d(2)"
  let _f = _pad_fields(self, "ZeroPad1d", padding, 1, "constant", 0.0)
  forward(x) = _pad_forward(self, x)
}
model ZeroPad2d(padding) {
  "Pads the last two dims with zeros. Example: nn.ZeroPad2d(1)"
  let _f = _pad_fields(self, "ZeroPad2d", padding, 2, "constant", 0.0)
  forward(x) = _pad_forward(self, x)
}
model ZeroPad3d(padding) {
  "Pads the last three dims with zeros. Example: nn.ZeroPad3d(1)"
  let _f = _pad_fields(self, "ZeroPad3d", padding, 3, "constant", 0.0)
  forward(x) = _pad_forward(self, x)
}
model ConstantPad1d(padding, value) {
  "Pads the last dim with value. Example: nn.ConstantPad1d(2, 0.5)"
  let _f = _pad_fields(self, "ConstantPad1d", padding, 1, "constant", value)
  forward(x) = _pad_forward(self, x)
}
model ConstantPad2d(padding, value) {
  "Pads the last two dims with value. Example: nn.ConstantPad2d(1, 0.5)"
  let _f = _pad_fields(self, "ConstantPad2d", padding, 2, "constant", value)
  forward(x) = _pad_forward(self, x)
}
model ConstantPad3d(padding, value) {
  "Pads the last three dims with value. Example: nn.ConstantPad3d(1, 0.5)"
  let _f = _pad_fields(self, "ConstantPad3d", padding, 3, "constant", value)
  forward(x) = _pad_forward(self, x)
}
model ReflectionPad1d(padding) {
  "Pads the last dim with its reflection. Example: nn.ReflectionPad1d(2)"
  let _f = _pad_fields(self, "ReflectionPad1d", padding, 1, "reflect", none)
  forward(x) = _pad_forward(self, x)
}
model ReflectionPad2d(padding) {
  "Pads the last two dims with their reflection. Example: nn.ReflectionPad2d(2)"
  let _f = _pad_fields(self, "ReflectionPad2d", padding, 2, "reflect", none)
  forward(x) = _pad_forward(self, x)
}
model ReflectionPad3d(padding) {
  "Pads the last three dims with their reflection. Example: nn.ReflectionPad3d(1)"
  let _f = _pad_fields(self, "ReflectionPad3d", padding, 3, "reflect", none)
  forward(x) = _pad_forward(self, x)
}
model ReplicationPad1d(padding) {
  "Pads the last dim by repeating its edge values. Example: nn.ReplicationPad1d(2)"
  let _f = _pad_fields(self, "ReplicationPad1d", padding, 1, "replicate", none)
  forward(x) = _pad_forward(self, x)
}
model ReplicationPad2d(padding) {
  "Pads the last two dims by repeating the edge values. Example: nn.ReplicationPad2d(2)"
  let _f = _pad_fields(self, "ReplicationPad2d", padding, 2, "replicate", none)
  forward(x) = _pad_forward(self, x)
}
model ReplicationPad3d(padding) {
  "Pads the last three dims by repeating the edge values. Example: nn.ReplicationPad3d(1)"
  let _f = _pad_fields(self, "ReplicationPad3d", padding, 3, "replicate", none)
  forward(x) = _pad_forward(self, x)
}
model CircularPad1d(padding) {
  "Pads the last dim by wrapping around. Example: nn.CircularPad1d(2)"
  let _f = _pad_fields(self, "CircularPad1d", padding, 1, "circular", none)
  forward(x) = _pad_forward(self, x)
}
model CircularPad2d(padding) {
  "Pads the last two dims by wrapping around. Example: nn.CircularPad2d(1)"
  let _f = _pad_fields(self, "CircularPad2d", padding, 2, "circular", none)
  forward(x) = _pad_forward(self, x)
}
model CircularPad3d(padding) {
  "Pads the last three dims by wrapping around. Example: nn.CircularPad3d(1)"
  let _f = _pad_fields(self, "CircularPad3d", padding, 3, "circular", none)
  forward(x) = _pad_forward(self, x)
}

# ---- reshaping ----------------------------------------------------------------------

# Flattens dims start_dim..end_dim into one.
model Flatten(start_dim=1, end_dim=-1) {
  "Flattens dims start_dim..end_dim into one. Example: nn.Flatten()(zeros([2, 3, 4])).shape"
  start_dim = start_dim
  end_dim = end_dim
  forward(x) {
    let s = list(x.shape)
    let n = len(s)
    let a = self.start_dim if self.start_dim >= 0 else self.start_dim + n
    let b = self.end_dim if self.end_dim >= 0 else self.end_dim + n
    return x.reshape(s[:a] + [_prod(s[a:b + 1])] + s[b + 1:])
  }
}

# Dim `dim` split into unflattened_size (one entry may be -1), Flatten's inverse.
model Unflatten(dim, unflattened_size) {
  "Splits dim into the dims unflattened_size. Example: nn.Unflatten(1, [2, 3])(zeros([4, 6])).shape"
  dim = dim
  unflattened_size = list(unflattened_size)
  forward(x) {
    let s = list(x.shape)
    let d = self.dim if self.dim >= 0 else self.dim + len(s)
    assert(d >= 0 and d < len(s), f"Unflatten: dim {self.dim} is out of range for shape {s}")
    return x.reshape(s[:d] + self.unflattened_size + s[d + 1:])
  }
}

# [*, C * r^2, H, W] -> [*, C, H * r, W * r]: each group of r^2 channels becomes an r x r
# block of pixels (pixel_shuffle), and back (PixelUnshuffle).
model PixelShuffle(upscale_factor) {
  "Rearranges [*, C * r^2, H, W] into [*, C, H * r, W * r]. Example: nn.PixelShuffle(2)(zeros([1, 8, 3, 3])).shape"
  upscale_factor = upscale_factor
  forward(x) = pixel_shuffle(x, self.upscale_factor)
}

model PixelUnshuffle(downscale_factor) {
  "Rearranges [*, C, H * r, W * r] into [*, C * r^2, H, W]. Example: nn.PixelUnshuffle(2)(zeros([1, 2, 6, 6])).shape"
  downscale_factor = downscale_factor
  forward(x) = pixel_unshuffle(x, self.downscale_factor)
}

# Sliding windows as columns (unfold, im2col) and back (fold, col2im).
model Unfold(kernel_size, dilation=1, padding=0, stride=1) {
  "Each sliding window of [N, C, H, W] as a column of [N, C * kh * kw, L]. Example: nn.Unfold(2)(zeros([1, 3, 4, 4])).shape"
  kernel_size = kernel_size
  dilation = dilation
  padding = padding
  stride = stride
  forward(x) = unfold(x, self.kernel_size, dilation=self.dilation, padding=self.padding, stride=self.stride)
}

model Fold(output_size, kernel_size, dilation=1, padding=0, stride=1) {
  "Columns [N, C * kh * kw, L] summed back into [N, C, H, W]. Example: nn.Fold([4, 4], 2)(zeros([1, 12, 9])).shape"
  output_size = output_size
  kernel_size = kernel_size
  dilation = dilation
  padding = padding
  stride = stride
  forward(x) = fold(x, self.output_size, self.kernel_size, dilation=self.dilation, padding=self.padding,
                    stride=self.stride)
}

# [N, C, *] with its C channels in `groups` groups of C / groups, interleaved: channel
# g * (C / groups) + i moves to i * groups + g (ShuffleNet's channel shuffle).
fn channel_shuffle(input, groups) {
  "The channels of [N, C, *] split into groups and interleaved, as torch.nn.functional.channel_shuffle. Example: nn.channel_shuffle(randn([1, 4, 2, 2]), 2)"
  let s = list(_nn_init._tensor_arg("channel_shuffle()", "input", input).shape)
  assert(type(groups) == "int" and groups > 0, f"channel_shuffle(): groups must be an int > 0, got {repr(groups) if type(groups) != 'tensor' else 'a tensor'}")
  assert(len(s) > 2, f"channel_shuffle(): expected an input with more than 2 dims [N, C, *], got shape {s}")
  assert(s[1] % groups == 0, f"channel_shuffle(): the {s[1]} channels must be divisible by groups ({groups})")
  let split = input.reshape([s[0], groups, s[1] // groups] + s[2:])
  return split.transpose(1, 2).reshape(s)
}

model ChannelShuffle(groups) {
  "Splits the channels of [N, C, *] into groups and interleaves them. Example: nn.ChannelShuffle(2)(randn([1, 4, 3, 3]))"
  groups = groups
  let _c = assert(type(groups) == "int" and groups > 0, f"ChannelShuffle: groups must be an int > 0, got {repr(groups)}")
  forward(x) = channel_shuffle(x, self.groups)
}

# PyTorch's Identity takes and ignores any arguments (nn.Identity(54) where a layer's
# arguments were): the positional ones here. Keyword arguments need **kwargs, which the
# language has not (yet): they are an error naming the keyword.
model Identity(*args) {
  "Returns its input unchanged (a placeholder layer); its arguments are ignored, as PyTorch's. Example: nn.Identity()(x)"
  forward(x) = x
}
