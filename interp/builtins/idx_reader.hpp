// IDX files (the format of MNIST and Fashion-MNIST), gzipped or plain, as
// data.read_idx reads them (interp/builtins/builtins_data.cpp). Declared here for the fuzz
// target of tests/fuzz/, which feeds the reader arbitrary bytes.
#pragma once
#include <string>

#include "tensor/tensor.hpp"

namespace nabla::interp {

// The tensor in `path`: u8, i8, i16 and i32 data as i64, f32 as f32, f64 as f64;
// with `scale`, everything as f32 divided by 255. A file that is not a complete,
// well-formed IDX file is an error (LangError) naming the file and what is wrong.
Tensor read_idx_file(const std::string& path, bool scale);

}  // namespace nabla::interp
