// The native half of the `data` stdlib module (stdlib/data.dsl imports it as `_data`):
// IDX files (gzipped or plain, through zlib), CSV files of numbers, mini-batches of
// tensors with a seeded shuffle, and the progress bar.
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/display.hpp"
#include "interp/builtins/idx_reader.hpp"
#include "interp/builtins/png.hpp"
#include "interp/app/progress.hpp"
#include "tensor/allocator.hpp"
#include "tensor/atomic_file.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/file_kind.hpp"
#include "tensor/random.hpp"

namespace nabla::interp {

namespace {

const char* kFashionDir = "/usr/share/datasets/fashion-mnist/";

[[noreturn]] void cannot_open_because(const std::string& fname, const std::string& path, const std::string& why) {
  std::string msg = fname + "(): cannot open " + path + ": " + why;
  if (path.rfind(kFashionDir, 0) == 0) msg += " (install the Debian package dataset-fashion-mnist)";
  fail(msg);
}

[[noreturn]] void cannot_open(const std::string& fname, const std::string& path, int err) {
  cannot_open_because(fname, path, std::strerror(err));
}

// A folder, FIFO or device is refused before it is opened (a FIFO would block).
void require_data_file(const std::string& fname, const std::string& path) {
  if (std::string problem = regular_file_problem(path); !problem.empty()) cannot_open_because(fname, path, problem);
}

struct GzFile {
  gzFile f = nullptr;
  ~GzFile() {
    if (f) gzclose(f);
  }
};

// Reads up to n bytes; returns how many were read.
size_t gz_read_all(gzFile f, void* dst, size_t n, const std::string& path) {
  size_t done = 0;
  auto* p = static_cast<char*>(dst);
  while (done < n) {
    unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - done, 1u << 30));
    int r = gzread(f, p + done, chunk);
    if (r < 0) {
      int e;
      const char* m = gzerror(f, &e);
      fail("read_idx(): " + path + " is corrupt: " + (m ? m : "read error") +
           (e == Z_BUF_ERROR ? " (the gzip stream is truncated)" : ""));
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  return done;
}

// Reads up to n bytes into a buffer that grows as the data arrives (doubling, from
// 64 KiB), so that a header declaring a huge shape over a short file is reported as
// truncated instead of allocating what the header claims. Fewer than n bytes: the
// file ended.
std::vector<unsigned char> gz_read_up_to(gzFile f, size_t n, const std::string& path) {
  std::vector<unsigned char> buf;
  while (buf.size() < n) {
    size_t at = buf.size(), want = std::min(n - at, std::max<size_t>(at, size_t{64} << 10));
    buf.resize(at + want);
    size_t got = gz_read_all(f, buf.data() + at, want, path);
    buf.resize(at + got);
    if (got < want) break;
  }
  return buf;
}

int64_t type_size(uint8_t code) {
  switch (code) {
    case 0x08: case 0x09: return 1;
    case 0x0B: return 2;
    case 0x0C: case 0x0D: return 4;
    case 0x0E: return 8;
    default: return 0;
  }
}

std::string hex2(unsigned v) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%02X", v & 0xFF);
  return b;
}

template <class T>
T load_be(const unsigned char* p) {
  unsigned char b[sizeof(T)];
  for (size_t k = 0; k < sizeof(T); ++k) b[k] = p[sizeof(T) - 1 - k];
  T v;
  std::memcpy(&v, b, sizeof(T));
  return v;
}

}  // namespace

Tensor read_idx_file(const std::string& path, bool scale) {
  require_data_file("read_idx", path);
  struct stat st {};
  stat(path.c_str(), &st);
  GzFile g;
  g.f = gzopen(path.c_str(), "rb");
  if (!g.f) cannot_open("read_idx", path, errno ? errno : ENOMEM);
  // 1 MiB of input buffer (zlib adds twice that for output) for a large file; a
  // small one needs no more than its size.
  gzbuffer(g.f, static_cast<unsigned>(std::clamp<off_t>(st.st_size, 8 << 10, 1 << 20)));
  unsigned char magic[4];
  size_t got = gz_read_all(g.f, magic, 4, path);
  if (got < 4)
    fail("read_idx(): " + path + " is truncated: expected a 4-byte IDX magic number, found " + std::to_string(got) +
         " bytes");
  if (magic[0] != 0 || magic[1] != 0)
    fail("read_idx(): " + path + " is not an IDX file: the magic number starts with " + hex2(magic[0]) + " " +
         hex2(magic[1]) + ", expected 0x00 0x00");
  uint8_t code = magic[2];
  int64_t esize = type_size(code);
  if (!esize)
    fail("read_idx(): " + path + " has an unknown IDX type code " + hex2(code) +
         " (expected 0x08 u8, 0x09 i8, 0x0B i16, 0x0C i32, 0x0D f32 or 0x0E f64)");
  int ndim = magic[3];
  if (ndim == 0) fail("read_idx(): " + path + " has 0 dimensions in its magic number");
  std::vector<unsigned char> hdr(static_cast<size_t>(ndim) * 4);
  got = gz_read_all(g.f, hdr.data(), hdr.size(), path);
  if (got < hdr.size())
    fail("read_idx(): " + path + " is truncated: expected " + std::to_string(ndim) + " dimension sizes (" +
         std::to_string(hdr.size()) + " bytes) after the magic number, found " + std::to_string(got) + " bytes");
  std::vector<int64_t> shape;
  int64_t numel = 1;
  std::string shape_text;
  for (int d = 0; d < ndim; ++d) {
    int64_t s = load_be<uint32_t>(&hdr[static_cast<size_t>(d) * 4]);
    shape.push_back(s);
    if (s > 0 && numel > (int64_t{1} << 40) / s) fail("read_idx(): " + path + " declares an implausibly large shape");
    numel *= s;
    shape_text += (d ? ", " : "") + std::to_string(s);
  }
  size_t nbytes = static_cast<size_t>(numel * esize);
  // No u8 dtype: read the bytes, then convert into a tensor allocated once the data is there.
  std::vector<unsigned char> buf = gz_read_up_to(g.f, nbytes, path);
  const unsigned char* raw = buf.data();
  got = buf.size();
  if (got < nbytes)
    fail("read_idx(): " + path + " is truncated: expected " + std::to_string(nbytes) + " bytes of data for shape [" +
         shape_text + "], found " + std::to_string(got));
  unsigned char extra;
  if (gz_read_all(g.f, &extra, 1, path) != 0)
    fail("read_idx(): " + path + " has bytes after the " + std::to_string(nbytes) + " bytes of data for shape [" +
         shape_text + "]");
  DType out_dt = scale ? DType::f32 : code == 0x0D ? DType::f32 : code == 0x0E ? DType::f64 : DType::i64;
  Tensor t = empty(Shape(shape), out_dt);
  auto n = static_cast<size_t>(numel);
  auto convert = [&](auto* dst, auto cast) {
    switch (code) {
      case 0x08: for (size_t k = 0; k < n; ++k) dst[k] = cast(static_cast<double>(raw[k]), raw[k]); break;
      case 0x09: for (size_t k = 0; k < n; ++k) { auto v = static_cast<int8_t>(raw[k]); dst[k] = cast(static_cast<double>(v), v); } break;
      case 0x0B: for (size_t k = 0; k < n; ++k) { auto v = load_be<int16_t>(raw + 2 * k); dst[k] = cast(static_cast<double>(v), v); } break;
      case 0x0C: for (size_t k = 0; k < n; ++k) { auto v = load_be<int32_t>(raw + 4 * k); dst[k] = cast(static_cast<double>(v), v); } break;
      case 0x0D: for (size_t k = 0; k < n; ++k) { auto v = load_be<float>(raw + 4 * k); dst[k] = cast(static_cast<double>(v), v); } break;
      case 0x0E: for (size_t k = 0; k < n; ++k) { auto v = load_be<double>(raw + 8 * k); dst[k] = cast(v, v); } break;
    }
  };
  if (out_dt == DType::f32) {
    float* dst = t.data<float>();
    if (scale && code == 0x08) {
      for (size_t k = 0; k < n; ++k) dst[k] = static_cast<float>(raw[k]) * (1.0f / 255.0f);
    } else {
      float mul = scale ? 1.0f / 255.0f : 1.0f;
      convert(dst, [mul](double d, auto) { return static_cast<float>(d) * mul; });
    }
  } else if (out_dt == DType::f64) {
    convert(t.data<double>(), [](double d, auto) { return d; });
  } else {
    int64_t* dst = t.data<int64_t>();
    if (code == 0x08) {
      for (size_t k = 0; k < n; ++k) dst[k] = raw[k];
    } else {
      convert(dst, [](double, auto v) { return static_cast<int64_t>(v); });
    }
  }
  return t;
}

namespace {

// CSV of numbers: an optional header row of names, then rows of the same width.
Value read_csv_file(const std::string& path, bool header) {
  require_data_file("read_csv", path);
  std::ifstream in(path);
  if (!in) cannot_open("read_csv", path, errno);
  std::vector<std::string> names;
  std::vector<double> values;
  std::string line;
  int64_t cols = -1, rows = 0, lineno = 0;
  auto split = [](const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
      if (c == ',') {
        out.push_back(cur);
        cur.clear();
      } else if (c != '\r') {
        cur += c;
      }
    }
    out.push_back(cur);
    for (auto& f : out) {
      size_t a = f.find_first_not_of(" \t"), b = f.find_last_not_of(" \t");
      f = a == std::string::npos ? "" : f.substr(a, b - a + 1);
      if (f.size() >= 2 && f.front() == '"' && f.back() == '"') f = f.substr(1, f.size() - 2);
    }
    return out;
  };
  while (std::getline(in, line)) {
    ++lineno;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto fields = split(line);
    if (header && names.empty()) {
      names = fields;
      cols = static_cast<int64_t>(fields.size());
      continue;
    }
    if (cols < 0) cols = static_cast<int64_t>(fields.size());
    if (static_cast<int64_t>(fields.size()) != cols)
      fail("read_csv(): " + path + ":" + std::to_string(lineno) + ": expected " + std::to_string(cols) +
           " fields, found " + std::to_string(fields.size()));
    for (size_t k = 0; k < fields.size(); ++k) {
      const std::string& f = fields[k];
      char* end = nullptr;
      double v = f.empty() ? NAN : std::strtod(f.c_str(), &end);
      if (!f.empty() && (end == f.c_str() || *end))
        fail("read_csv(): " + path + ":" + std::to_string(lineno) + ": column " + std::to_string(k + 1) +
             (k < names.size() ? " ('" + names[k] + "')" : std::string()) + " is not a number: '" + f + "'");
      values.push_back(v);
    }
    ++rows;
  }
  if (cols < 0) cols = 0;
  if (names.empty())
    for (int64_t k = 0; k < cols; ++k) names.push_back("c" + std::to_string(k));
  Tensor t = empty(Shape{rows, cols}, DType::f32);
  float* dst = t.data<float>();
  for (size_t k = 0; k < values.size(); ++k) dst[k] = static_cast<float>(values[k]);
  std::vector<Value> nv;
  for (auto& n : names) nv.push_back(make_str(n));
  return make_tuple({Value::tensor(t), make_list(std::move(nv))});
}

// A permutation of 0..n-1: Fisher-Yates over SplitMix64 seeded with `seed`.
std::vector<int64_t> permutation(int64_t n, uint64_t seed) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) p[static_cast<size_t>(k)] = k;
  uint64_t s = seed;
  auto next = [&s]() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  for (int64_t k = n - 1; k > 0; --k) {
    auto j = static_cast<int64_t>(next() % static_cast<uint64_t>(k + 1));
    std::swap(p[static_cast<size_t>(k)], p[static_cast<size_t>(j)]);
  }
  return p;
}

Tensor index_tensor(const std::vector<int64_t>& p) {
  Tensor t = empty(Shape{static_cast<int64_t>(p.size())}, DType::i64);
  std::memcpy(t.data<int64_t>(), p.data(), p.size() * sizeof(int64_t));
  return t;
}

uint64_t seed_of(const Bound& b, size_t k, const std::string& fname) {
  // No seed: draw one from the global generator (manual_seed makes it reproducible).
  return b.has(k) ? static_cast<uint64_t>(as_int(b[k], fname + ": seed")) : random_bits();
}

// The (shuffled) items on `device` in one transfer, through page-locked memory so
// that the copy runs at full bus speed and does not hold up the host: the batches
// are then views of it, with no copy per batch.
Tensor upload_for_batches(const Tensor& t, const Device& device) {
  if (device == t.device()) return t;
  if (device.kind == DeviceKind::cpu) return cuda::to_device(t, device);
  Tensor staged = empty_pinned(t.sizes(), t.dtype());
  copy_into(staged, t);
  return cuda::to_device(staged, device, /*non_blocking=*/true);
}

Value batches_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("batches", a, {"x", "y", "size", "shuffle", "drop_last", "seed", "device"}, 3);
  std::vector<Tensor> ts;
  ts.push_back(as_tensor(b[0], "batches(): x"));
  bool with_y = b.has(1);
  if (with_y) ts.push_back(as_tensor(b[1], "batches(): y"));
  int64_t size = as_int(b[2], "batches(): size");
  if (size <= 0) fail("batches(): size must be positive, got " + std::to_string(size));
  bool shuffle = b.has(3) && as_bool(b[3], "batches(): shuffle");
  bool drop_last = b.has(4) && as_bool(b[4], "batches(): drop_last");
  for (auto& t : ts)
    if (t.dim() == 0) fail("batches(): expected tensors with a first dimension (items), got a 0-d tensor");
  int64_t n = ts[0].size(0);
  if (with_y && ts[1].size(0) != n)
    fail("batches(): x has " + std::to_string(n) + " items but y has " + std::to_string(ts[1].size(0)));
  if (shuffle) {
    Tensor idx = to_device(index_tensor(permutation(n, seed_of(b, 5, "batches()"))), ts[0].device());
    for (auto& t : ts) t = index_select(t, 0, idx);
  } else if (b.has(5)) {
    fail("batches(): seed is only used with shuffle=true");
  }
  if (b.has(6)) {
    Device device = as_device(b[6], "batches(): device");
    for (auto& t : ts) t = upload_for_batches(t, device);
  }
  std::vector<Value> out;
  for (int64_t s = 0; s < n; s += size) {
    int64_t e = std::min(n, s + size);
    if (e - s < size && drop_last) break;
    if (with_y) out.push_back(make_tuple({Value::tensor(slice(ts[0], 0, s, e)), Value::tensor(slice(ts[1], 0, s, e))}));
    else out.push_back(Value::tensor(slice(ts[0], 0, s, e)));
  }
  return make_list(std::move(out));
}

// The running sum of the losses a training loop reported as GPU tensors.
struct DeviceLossSum {
  Tensor sum;  // f64, on the losses' device
  int64_t count = 0;

  void add(const Tensor& loss) {
    if (loss.numel() != 1) fail("update(): loss must be a number or a one-element tensor, got shape " + loss.shape_str());
    NoGradGuard no_grad;
    Tensor l = to_dtype(reshape(detach(loss), {}), DType::f64);
    sum = sum.defined() ? nabla::add(sum, l) : l;
    ++count;
  }
  std::pair<double, int64_t> take() {
    std::pair<double, int64_t> out{sum.defined() ? sum.item() : 0.0, count};  // waits for the device
    sum = Tensor();
    count = 0;
    return out;
  }
};

// Progress's total: a count, or the list of batches itself (its length); none or 0 is a
// bar with no known end (an empty dataset's len() is 0, so 0 is not an error).
int64_t progress_total(const Bound& b) {
  if (!b.has(0)) return 0;
  if (b[0].tag == Tag::List || b[0].tag == Tag::Tuple) return static_cast<int64_t>(b[0].as<ListObj>()->items.size());
  if (b[0].tag != Tag::Int) fail(std::string("Progress(): total: expected an int count of steps (or none), got ") + type_name(b[0]));
  if (b[0].i < 0) fail("Progress(): total must be a count of steps, 0 or more (none: unknown), got " + std::to_string(b[0].i));
  return b[0].i;
}

// update()'s steps: a count that keeps the bar's total within an int64.
int64_t progress_steps(const Bound& u, int64_t done) {
  if (!u.has(1)) return 1;
  if (u[1].tag != Tag::Int) fail(std::string("update(): steps: expected an int, got ") + type_name(u[1]));
  int64_t sum;
  if (__builtin_add_overflow(done, u[1].i, &sum) || sum < 0)
    fail("update(): steps=" + std::to_string(u[1].i) + " takes the bar's count (" + std::to_string(done) +
         ") outside 0 to 2^63 - 1");
  return u[1].i;
}

Value progress_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("Progress", a, {"total", "desc", "tty"}, 0);
  int64_t total = progress_total(b);
  std::string desc = b.has(1) ? str(b[1]) : "";
  // In a notebook (a display sink) the bar redraws its own display in place, as on
  // a terminal, unless tty= says otherwise (Note [Display] in display.hpp).
  bool notebook = ev.display && !b.has(2);
  bool tty = b.has(2) ? as_bool(b[2], "Progress(): tty") : notebook || isatty(STDOUT_FILENO) == 1;
  Evaluator* evp = &ev;
  auto out = notebook ? progress_display(ev) : [evp, tty](const std::string& s) {
    evp->output(s);
    if (tty) std::fflush(stdout);
  };
  auto bar = std::make_shared<ProgressBar>(desc, total, tty, out);
  auto m = std::make_shared<Module>();
  m->name = "Progress";
  // update(loss=...) takes a number or a one-element tensor; a tensor on a GPU is
  // added to a running sum there (no wait), read when the bar shows the mean.
  auto device_losses = std::make_shared<DeviceLossSum>();
  bar->set_deferred_losses([device_losses] { return device_losses->take(); });
  m->set("update", make_native("update", [bar, device_losses](Evaluator&, CallArgs& a) {
           Bound u = bind("update", a, {"loss", "steps"}, 0);
           int64_t steps = progress_steps(u, bar->count());
           std::optional<double> loss;
           if (u.has(0) && u[0].tag == Tag::Tensor && u[0].t.device().kind != DeviceKind::cpu)
             device_losses->add(u[0].t);
           else if (u.has(0))
             loss = u[0].tag == Tag::Tensor ? u[0].t.item() : as_num(u[0], "update(): loss");
           bar->update(steps, loss);
           return Value();
         }));
  m->set("close", make_native("close", [bar](Evaluator&, CallArgs& a) {
           bind("close", a, {}, 0);
           bar->close();
           return Value();
         }));
  m->set("count", make_native("count", [bar](Evaluator&, CallArgs& a) {
           bind("count", a, {}, 0);
           return Value::integer(bar->count());
         }));
  m->set("mean_loss", make_native("mean_loss", [bar](Evaluator&, CallArgs& a) {
           bind("mean_loss", a, {}, 0);
           auto l = bar->mean_loss();
           return l ? Value::number(*l) : Value();
         }));
  return Value::object(Tag::Module, m);
}

Value read_idx_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("data.read_idx()");
  Bound b = bind("read_idx", a, {"path", "scale"}, 1);
  if (b[0].tag != Tag::Str) fail(std::string("read_idx(): path must be a str, got ") + type_name(b[0]));
  return Value::tensor(read_idx_file(b[0].as<StrObj>()->s, b.has(1) && as_bool(b[1], "read_idx(): scale")));
}

Value read_csv_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("data.read_csv()");
  Bound b = bind("read_csv", a, {"path", "header"}, 1);
  if (b[0].tag != Tag::Str) fail(std::string("read_csv(): path must be a str, got ") + type_name(b[0]));
  return read_csv_file(b[0].as<StrObj>()->s, !b.has(1) || as_bool(b[1], "read_csv(): header"));
}

Value permutation_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("permutation", a, {"n", "seed"}, 1);
  int64_t n = as_int(b[0], "permutation(): n");
  if (n < 0) fail("permutation(): n must not be negative");
  // Note [Host memory budget]: the shuffle's vector and the tensor are asked for first,
  // so permutation(1e15) names itself instead of a bare out of memory.
  CpuAllocator::instance().check_host_request(static_cast<size_t>(n), 2 * sizeof(int64_t),
                                              "permutation(n=" + std::to_string(n) + ")");
  return Value::tensor(index_tensor(permutation(n, seed_of(b, 1, "permutation()"))));
}

Value file_exists_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("data.file_exists()");
  Bound b = bind("file_exists", a, {"path"}, 1);
  const std::string path = str(b[0]);  // no file is named with a NUL (Note [A NUL byte in a path])
  return Value::boolean(nul_in_path_problem(path).empty() && access(path.c_str(), R_OK) == 0);
}

}  // namespace

bool is_image_tensor(const Tensor& t) {
  int64_t channels = t.dim() == 3 ? t.sizes()[0] : 1;
  return (t.dim() == 2 || t.dim() == 3) && (channels == 1 || channels == 3);
}

// Floating values are clamped to [0, 1] and scaled to 0..255, integers clamped to 0..255.
std::string image_tensor_png(const Tensor& t) {
  bool planar = t.dim() == 3;
  int64_t channels = planar ? t.sizes()[0] : 1;
  int64_t h = t.sizes()[t.dim() - 2], w = t.sizes()[t.dim() - 1];
  std::vector<double> v = to_double_vector(contiguous_raw(t));
  std::vector<uint8_t> pixels(v.size());
  double scale = is_floating(t.dtype()) ? 255.0 : 1.0;
  // [C, H, W] planes to interleaved [H, W, C].
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < h * w; ++i) {
      double x = std::round(v[static_cast<size_t>(c * h * w + i)] * scale);
      pixels[static_cast<size_t>(i * channels + c)] =
          static_cast<uint8_t>(std::isnan(x) ? 0.0 : std::clamp(x, 0.0, 255.0));
    }
  return encode_png(pixels, w, h, static_cast<int>(channels));
}

namespace {

// save_image writes PNG only (nabla links libpng, no JPEG or other encoder), so a path
// that names another format is refused rather than given PNG bytes under a .jpg name.
void check_png_path(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  size_t dot = name.rfind('.');
  std::string ext = dot == std::string::npos || dot == 0 ? "" : name.substr(dot);
  std::string lower = ext;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == ".png") return;
  fail("save_image(): path '" + path + "' " +
       (ext.empty() ? std::string("has no extension") : "has extension '" + ext + "'") +
       "; save_image writes PNG only: give a path ending in .png");
}

// save_image(tensor, path): [H, W] or [C, H, W] (C 1 or 3) as an 8-bit PNG (image_tensor_png).
Value save_image_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("data.save_image()");
  Bound b = bind("save_image", a, {"tensor", "path"}, 2);
  const Tensor& t = as_tensor(b[0], "save_image(): tensor");
  if (b[1].tag != Tag::Str) fail(std::string("save_image(): path must be a str, got ") + type_name(b[1]));
  const std::string& path = b[1].as<StrObj>()->s;
  check_png_path(path);
  if (!is_image_tensor(t))
    fail("save_image(): expected a tensor [H, W] or [C, H, W] with C 1 or 3, got shape " + t.shape_str());
  if (t.numel() == 0) fail("save_image(): the image is empty: shape " + t.shape_str());
  // Through the atomic writer, as every file nabla writes (Note [Atomic files], Note
  // [Save targets]): an ofstream here opened a FIFO and waited forever for a reader,
  // and a failed write left a torn PNG where the old image was.
  write_file_atomically(path, image_tensor_png(t), "save_image()");
  return Value::none();
}

// The native module behind `import data` (stdlib/data.dsl wraps it).
const BuiltinEntry kDataFunctions[] = {
    {"read_idx", read_idx_builtin, "read_idx(path, scale=false)",
     "The tensor of an IDX file (MNIST's format, gzipped or not); scale: u8 as f32 in [0, 1]. "
     "Example: _data.read_idx(\"train-images-idx3-ubyte.gz\", scale=true)"},
    {"read_csv", read_csv_builtin, "read_csv(path, header=true)",
     "A CSV file of numbers as (an f32 tensor of one row per line, the column names); header: the first line names "
     "them. "
     "Example: _data.read_csv(\"points.csv\")"},
    {"batches", batches_builtin, "batches(x, y, size, shuffle=false, drop_last=false, seed=none, device=none)",
     "x (and y) cut into batches of size items along the first dim, as a list of views (or (x, y) tuples). "
     "Example: _data.batches(randn(100, 4), arange(100), 64, shuffle=true, seed=0)"},
    {"permutation", permutation_builtin, "permutation(n, seed=none)",
     "The ints 0 to n - 1 in a random order, as an i64 tensor. Example: _data.permutation(10, seed=1)"},
    {"Progress", progress_builtin, "Progress(total=0, desc=\"\", tty=stdout is a terminal)",
     "A progress bar with update(loss=none, steps=1), close() and count(). Example: let bar = _data.Progress(10, "
     "desc=\"epoch 1\")"},
    {"save_image", save_image_builtin, "save_image(tensor, path)",
     "Writes [H, W] or [C, H, W] (C 1 or 3; floats in [0, 1]) as an 8-bit PNG file (path ending in .png). "
     "Example: _data.save_image(rand(28, 28), \"digit.png\")"},
    {"file_exists", file_exists_builtin, "file_exists(path)",
     "Whether a readable file is at path (refused in sandbox mode). Example: _data.file_exists(\"data/train.csv\")"},
};

}  // namespace

const BuiltinLibrary kDataLibrary = {"data", "_data", kDataFunctions, nullptr};

}  // namespace nabla::interp
