// The safetensors reader and writer (see safetensors.hpp for the layout).
#include "tensor/safetensors.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "tensor/cpu/copy.hpp"

namespace nabla::safetensors {

static_assert(std::endian::native == std::endian::little, "safetensors stores little-endian bytes");

namespace {

using json = nlohmann::ordered_json;

[[noreturn]] void fail(const std::string& file, const std::string& what) { throw Error(file + ": " + what); }

std::string offsets_str(uint64_t b, uint64_t e) {
  std::string out = "[";
  out += std::to_string(b);
  out += ", ";
  out += std::to_string(e);
  return out + "]";
}

std::string shape_of(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t k = 0; k < s.size(); ++k) out += (k ? ", " : "") + std::to_string(s[k]);
  return out + "]";
}

// The padded JSON header and, per tensor, its contiguous CPU copy.
struct Layout {
  std::string header;  // padded with spaces to a multiple of 8
  std::vector<Tensor> data;
  uint64_t data_bytes = 0;
};

Layout layout(const NamedTensors& tensors, const Metadata& metadata, const std::string& file) {
  Layout L;
  json h = json::object();
  if (!metadata.empty()) {
    json m = json::object();
    for (auto& [k, v] : metadata) m[k] = v;
    h["__metadata__"] = std::move(m);
  }
  std::unordered_set<std::string> seen;
  for (auto& [name, t] : tensors) {
    if (name.empty()) fail(file, "a tensor name is empty");
    if (name == "__metadata__") fail(file, "'__metadata__' is reserved and cannot name a tensor");
    if (!seen.insert(name).second) fail(file, "tensor name '" + name + "' appears twice");
    if (!t.defined()) fail(file, "tensor '" + name + "' is undefined");
    Tensor c = contiguous_raw(cpu_copy(t));  // a GPU tensor is saved from a CPU copy (files hold no device)
    uint64_t n = static_cast<uint64_t>(c.numel()) * dtype_size(c.dtype());
    json shape = json::array();
    for (int64_t d : c.sizes()) shape.push_back(d);
    h[name] = {{"dtype", dtype_code(c.dtype())},
               {"shape", std::move(shape)},
               {"data_offsets", {L.data_bytes, L.data_bytes + n}}};
    L.data_bytes += n;
    L.data.push_back(std::move(c));
  }
  L.header = h.dump(-1, ' ', false, json::error_handler_t::replace);
  L.header.append((8 - L.header.size() % 8) % 8, ' ');
  return L;
}

std::string length_prefix(uint64_t n) {
  std::string out(8, '\0');
  for (int k = 0; k < 8; ++k) out[k] = static_cast<char>((n >> (8 * k)) & 0xff);
  return out;
}

const void* bytes_of(const Tensor& t) { return t.numel() ? t.raw_data() : nullptr; }
size_t nbytes_of(const Tensor& t) { return static_cast<size_t>(t.numel()) * dtype_size(t.dtype()); }

void write_all(int fd, const void* p, size_t n, const std::string& tmp) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t w = ::write(fd, c, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot write '" + tmp + "': " + std::strerror(errno));
    }
    c += w;
    n -= static_cast<size_t>(w);
  }
}

std::string dir_of(const std::string& path) {
  size_t s = path.find_last_of('/');
  if (s == std::string::npos) return ".";
  if (s == 0) return "/";
  return path.substr(0, s);
}

}  // namespace

const char* dtype_code(DType t) {
  switch (t) {
    case DType::f32: return "F32";
    case DType::f64: return "F64";
    case DType::f16: return "F16";
    case DType::bf16: return "BF16";
    case DType::i64: return "I64";
    case DType::i32: return "I32";
    case DType::b8: return "BOOL";
    case DType::i8: return "I8";
    case DType::u8: return "U8";
  }
  return "?";
}

bool dtype_from_code(const std::string& code, DType* out) {
  for (DType t : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i64, DType::i32, DType::b8, DType::i8,
                  DType::u8})
    if (code == dtype_code(t)) {
      *out = t;
      return true;
    }
  return false;
}

std::string serialize(const NamedTensors& tensors, const Metadata& metadata) {
  Layout L = layout(tensors, metadata, "<memory>");
  std::string out = length_prefix(L.header.size()) + L.header;
  for (auto& t : L.data)
    if (t.numel()) out.append(static_cast<const char*>(t.raw_data()), nbytes_of(t));
  return out;
}

namespace {

// Reads `n` bytes at `offset` of the file into `dst`.
using ReadAt = std::function<void(uint64_t offset, void* dst, uint64_t n)>;

// Parses and validates a file of `size` bytes read through `read`; only the header
// and the tensors' bytes are read, straight into the tensors.
Checkpoint parse_with(uint64_t size, const ReadAt& read, const std::string& name) {
  if (size < 8)
    fail(name, "not a safetensors file: " + std::to_string(size) +
                   " bytes, fewer than the 8 of the header length");
  unsigned char len[8];
  read(0, len, 8);
  uint64_t n = 0;
  for (int k = 0; k < 8; ++k) n |= static_cast<uint64_t>(len[k]) << (8 * k);
  uint64_t rest = size - 8;
  if (n > rest)
    fail(name, "header length " + std::to_string(n) + " is past the end of the file (" + std::to_string(rest) +
                   " bytes follow it)");
  std::string header(n, '\0');
  if (n) read(8, header.data(), n);
  json h = json::parse(header, nullptr, false);
  if (h.is_discarded()) fail(name, "the header is not valid JSON");
  if (!h.is_object()) fail(name, "the header is not a JSON object");
  const uint64_t data_size = rest - n;

  struct Entry {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
    uint64_t begin, end;
  };
  std::vector<Entry> entries;
  Checkpoint out;
  for (auto& [key, v] : h.items()) {
    if (key == "__metadata__") {
      if (!v.is_object()) fail(name, "__metadata__ must map strings to strings");
      for (auto& [mk, mv] : v.items()) {
        if (!mv.is_string()) fail(name, "__metadata__ must map strings to strings ('" + mk + "' is not a string)");
        out.metadata.emplace_back(mk, mv.get<std::string>());
      }
      continue;
    }
    const std::string what = "tensor '" + key + "'";
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets"))
      fail(name, what + ": expected an object with dtype, shape and data_offsets");
    Entry e{key, DType::f32, {}, 0, 0};
    if (!v["dtype"].is_string()) fail(name, what + ": dtype is not a string");
    std::string code = v["dtype"].get<std::string>();
    if (!dtype_from_code(code, &e.dtype))
      fail(name, what + ": unknown dtype '" + code + "' (nabla reads F32, F64, F16, BF16, I64, I32, I8, U8, BOOL)");
    if (!v["shape"].is_array()) fail(name, what + ": shape is not a list");
    for (auto& d : v["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0)
        fail(name, what + ": shape must hold non-negative integers");
      e.shape.push_back(d.get<int64_t>());
    }
    auto& off = v["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      fail(name, what + ": data_offsets must be two non-negative integers");
    e.begin = off[0].get<uint64_t>();
    e.end = off[1].get<uint64_t>();
    if (e.begin > e.end) fail(name, what + ": data_offsets " + offsets_str(e.begin, e.end) + " are reversed");
    if (e.end > data_size)
      fail(name, what + ": data_offsets " + offsets_str(e.begin, e.end) + " are out of range (the data section has " +
                     std::to_string(data_size) + " bytes)");
    uint64_t need = dtype_size(e.dtype);
    bool overflow = false;
    for (int64_t d : e.shape) overflow |= __builtin_mul_overflow(need, static_cast<uint64_t>(d), &need);
    if (overflow || need != e.end - e.begin)
      fail(name, what + ": data_offsets " + offsets_str(e.begin, e.end) + " hold " + std::to_string(e.end - e.begin) +
                     " bytes but dtype " + code + " and shape " + shape_of(e.shape) + " need " +
                     (overflow ? std::string("more than 2^64") : std::to_string(need)));
    entries.push_back(std::move(e));
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  for (size_t k = 1; k < entries.size(); ++k) {
    const Entry& a = entries[k - 1];
    const Entry& b = entries[k];
    if (b.begin < a.end)
      fail(name, "tensors '" + a.name + "' and '" + b.name + "' overlap (data_offsets " + offsets_str(a.begin, a.end) +
                     " and " + offsets_str(b.begin, b.end) + ")");
  }
  for (auto& e : entries) {
    Tensor t = empty(Shape(e.shape), e.dtype);
    if (e.end > e.begin) read(8 + n + e.begin, t.raw_data(), e.end - e.begin);
    out.tensors.emplace_back(e.name, std::move(t));
  }
  return out;
}

}  // namespace

Checkpoint parse(const std::string& bytes, const std::string& name) {
  return parse_with(
      bytes.size(), [&](uint64_t off, void* dst, uint64_t n) { std::memcpy(dst, bytes.data() + off, n); }, name);
}

void save_file(const std::string& path, const NamedTensors& tensors, const Metadata& metadata) {
  Layout L = layout(tensors, metadata, path);
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error("cannot save '" + path + "': cannot open '" + tmp + "': " + std::strerror(errno));
  try {
    std::string head = length_prefix(L.header.size()) + L.header;
    write_all(fd, head.data(), head.size(), tmp);
    for (auto& t : L.data) write_all(fd, bytes_of(t), nbytes_of(t), tmp);
    if (::fsync(fd) != 0) throw Error("cannot fsync '" + tmp + "': " + std::strerror(errno));
  } catch (const Error& e) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw Error("cannot save '" + path + "': " + e.what());
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw Error("cannot save '" + path + "': cannot close '" + tmp + "': " + std::strerror(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw Error("cannot save '" + path + "': cannot rename '" + tmp + "' over it: " + std::strerror(err));
  }
  // The rename is durable once the directory is on disk.
  std::string dir = dir_of(path);
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

Checkpoint load_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot load '" + path + "': " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error("cannot load '" + path + "': it is a directory");
  }
  auto read = [&](uint64_t off, void* dst, uint64_t n) {
    char* p = static_cast<char*>(dst);
    while (n > 0) {
      ssize_t r = ::pread(fd, p, n, static_cast<off_t>(off));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) throw Error(path + ": " + (r < 0 ? std::string("read error: ") + std::strerror(errno) : "the file is shorter than when it was opened"));
      p += r;
      off += static_cast<uint64_t>(r);
      n -= static_cast<uint64_t>(r);
    }
  };
  try {
    Checkpoint ck = parse_with(static_cast<uint64_t>(st.st_size), read, path);
    ::close(fd);
    return ck;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

void load_into(const Checkpoint& ckpt, const NamedTensors& targets, const std::string& name) {
  std::vector<std::string> problems;
  std::vector<std::pair<const Tensor*, const Tensor*>> copies;  // (target, source)
  std::unordered_set<std::string> wanted;
  std::unordered_map<std::string, const Tensor*> in_file;
  for (auto& [fn, ft] : ckpt.tensors) in_file.emplace(fn, &ft);
  for (auto& [n, t] : targets) {
    wanted.insert(n);
    auto it = in_file.find(n);
    const Tensor* src = it == in_file.end() ? nullptr : it->second;
    if (!src) {
      problems.push_back("missing: '" + n + "' (" + t.shape_str() + " " + dtype_name(t.dtype()) + ")");
      continue;
    }
    bool ok = true;
    if (src->sizes() != t.sizes()) {
      problems.push_back("wrong shape: '" + n + "' is " + src->shape_str() + " in the file, " + t.shape_str() +
                         " in the state");
      ok = false;
    }
    if (src->dtype() != t.dtype()) {
      problems.push_back("wrong dtype: '" + n + "' is " + dtype_name(src->dtype()) + " in the file, " +
                         dtype_name(t.dtype()) + " in the state");
      ok = false;
    }
    if (ok) copies.emplace_back(&t, src);
  }
  for (auto& [fn, ft] : ckpt.tensors)
    if (!wanted.count(fn)) problems.push_back("unexpected: '" + fn + "' (" + ft.shape_str() + " " + dtype_name(ft.dtype()) + ")");
  if (!problems.empty()) {
    std::string msg = name + ": does not match the state (" + std::to_string(problems.size()) + " problem" +
                      (problems.size() == 1 ? "" : "s") + "):";
    for (auto& p : problems) msg += "\n  " + p;
    throw Error(msg);
  }
  for (auto& [dst, src] : copies) {
    copy_into(*dst, *src);
    dst->bump_version();
  }
}

void load_into(const std::string& path, const NamedTensors& targets) { load_into(load_file(path), targets, path); }

}  // namespace nabla::safetensors
