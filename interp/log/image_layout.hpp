// An image tensor's values laid out as TensorBoard's 8-bit HWC image, as
// torch.utils.tensorboard.summary.image does it: convert_to_HWC (dataformats of 2, 3
// or 4 letters among N, C, H, W; one gray channel made RGB; N images tiled 8 to a row
// by make_grid) and the scaling (u8 values as they are, every other dtype times 255,
// clipped to [0, 255], truncated). Knows nothing of tensors or the language: the
// values come as doubles, row-major, with their shape.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "interp/log/summaries.hpp"

namespace nabla::tensorboard_log {

// An error naming what is wrong (dataformats, shape, channel count) when the values
// are not an image of that layout.
Image image_from_values(const std::vector<double>& values, const std::vector<int64_t>& shape,
                        const std::string& dataformats, bool is_u8);

}  // namespace nabla::tensorboard_log
