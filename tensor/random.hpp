// Seeded random numbers: one global generator (manual_seed makes every run that
// follows reproduce bit for bit on any machine, because the bits come from our own
// SplitMix64 generator, not from the C++ library's distributions).
#pragma once
#include <cstdint>

#include "tensor/host_device.hpp"
#include "tensor/tensor.hpp"

namespace nabla {

void manual_seed(uint64_t seed);
uint64_t initial_seed();
// The generator's position, to put back after a run whose draws must not count
// (compile()'s capture run: Note [What a capture read] in interp/eval/capture_reads.hpp).
uint64_t generator_state();
void set_generator_state(uint64_t state);

// Uniform in [0, 1), standard normal, integers in [low, high), and 0/1 draws.
Tensor rand(const Shape& sizes, DType dtype = DType::f32);
Tensor randn(const Shape& sizes, DType dtype = DType::f32);
Tensor randint(int64_t low, int64_t high, const Shape& sizes, DType dtype = DType::i64);
// Each element is 1 with probability p, else 0.
Tensor bernoulli(const Shape& sizes, double p, DType dtype = DType::f32);

// The same draws written into an existing contiguous tensor, in its dtype: uniform in
// [low, high), normal with mean and std, integers in [low, high). What the
// random_uniform, random_normal and random_integers rows compute; rand(s) draws exactly
// what fill_uniform(t, 0, 1) does.
void fill_uniform(Tensor& out, double low, double high);
void fill_normal(Tensor& out, double mean, double std);
void fill_integers(Tensor& out, int64_t low, int64_t high);

// Raw draws for kernels that need their own (dropout): uniform doubles in [0, 1).
double random_uniform();
uint64_t random_bits();

// Element i's uniform draw in [0, 1) for one draw `seed` of random_bits (dropout):
// SplitMix64 over a counter, so the draw depends only on (seed, i), whatever the
// thread count, and the CPU and CUDA kernels compute it bit for bit (Note [Dropout on
// CUDA] in tensor/cuda/copy_ops.cu).
NABLA_HOST_DEVICE inline double uniform_at(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

}  // namespace nabla
