// Seeded random numbers: one global generator (manual_seed makes every run that
// follows reproduce bit for bit on any machine, because the bits come from our own
// SplitMix64 generator, not from the C++ library's distributions).
#pragma once
#include <cstdint>

#include "tensor/tensor.hpp"

namespace nabla {

void manual_seed(uint64_t seed);
uint64_t initial_seed();

// Uniform in [0, 1), standard normal, integers in [low, high), and 0/1 draws.
Tensor rand(const Shape& sizes, DType dtype = DType::f32);
Tensor randn(const Shape& sizes, DType dtype = DType::f32);
Tensor randint(int64_t low, int64_t high, const Shape& sizes, DType dtype = DType::i64);
// Each element is 1 with probability p[i] (p's dtype), else 0.
Tensor bernoulli(const Tensor& p);
// Each element is 1 with probability p, else 0.
Tensor bernoulli(const Shape& sizes, double p, DType dtype = DType::f32);

// Raw draws for kernels that need their own (dropout): uniform doubles in [0, 1).
double random_uniform();
uint64_t random_bits();

}  // namespace nabla
