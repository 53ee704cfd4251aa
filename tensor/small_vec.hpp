// SmallVec: a vector of trivially copyable values that keeps up to N of them
// inline. Tensor sizes and strides live here so that making a tensor of rank <= 6
// does not touch the heap for its shape (see Note [Tiny op latency] in dispatch.cpp).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <type_traits>
#include <vector>

namespace nabla {

template <class T, size_t N>
class SmallVec {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVec holds plain values only");

 public:
  SmallVec() = default;
  SmallVec(std::initializer_list<T> init) { assign(init.begin(), init.end()); }
  explicit SmallVec(size_t n, T fill = T{}) { resize(n, fill); }
  template <class It>
  SmallVec(It first, It last) { assign(first, last); }
  SmallVec(const std::vector<T>& v) { assign(v.begin(), v.end()); }
  SmallVec(const SmallVec& o) { assign(o.begin(), o.end()); }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  ~SmallVec() {
    if (heap_) std::free(heap_);
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return heap_ ? heap_ : inline_; }
  const T* data() const { return heap_ ? heap_ : inline_; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  void reserve(size_t n) {
    if (n <= capacity()) return;
    T* mem = static_cast<T*>(std::malloc(n * sizeof(T)));
    if (size_) std::memcpy(mem, data(), size_ * sizeof(T));
    if (heap_) std::free(heap_);
    heap_ = mem;
    heap_cap_ = n;
  }
  void resize(size_t n, T fill = T{}) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data()[i] = fill;
    size_ = n;
  }
  void push_back(T v) {
    if (size_ == capacity()) reserve(capacity() * 2);
    data()[size_++] = v;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  void insert(size_t pos, T v) {
    push_back(v);
    std::rotate(begin() + pos, end() - 1, end());
  }
  void erase(size_t pos) {
    std::rotate(begin() + pos, begin() + pos + 1, end());
    --size_;
  }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  friend bool operator==(const SmallVec& a, const SmallVec& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  size_t capacity() const { return heap_ ? heap_cap_ : N; }
  template <class It>
  void assign(It first, It last) {
    size_t n = static_cast<size_t>(std::distance(first, last));
    size_ = 0;
    reserve(n);
    std::copy(first, last, data());
    size_ = n;
  }

  T inline_[N]{};
  T* heap_ = nullptr;
  size_t heap_cap_ = 0;
  size_t size_ = 0;
};

using Shape = SmallVec<int64_t, 6>;

}  // namespace nabla
