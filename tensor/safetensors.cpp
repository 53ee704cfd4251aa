// The safetensors reader and writer (see safetensors.hpp for the layout).
#include "tensor/safetensors.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "tensor/atomic_file.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/crc32c.hpp"
#include "tensor/file_kind.hpp"
#include "tensor/json_linear.hpp"

namespace nabla::safetensors {

static_assert(std::endian::native == std::endian::little, "safetensors stores little-endian bytes");

namespace {

using json = nlohmann::ordered_json;

constexpr const char* kMetadataKey = "__metadata__";
// The limit of Hugging Face's reader too: a longer header is damage or an attack.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// A header nests three levels (the object, a tensor's entry, its shape). Deeper JSON
// is refused while parsing, before any recursive code (dump, destruction) walks it.
constexpr int kMaxHeaderDepth = 8;
// Tensors are read in chunks that are checksummed while they are still in cache.
constexpr uint64_t kReadChunk = uint64_t(1) << 18;

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

// The compact text of a header, which parsing and dumping again reproduces exactly.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// ---- checksums: see Note [Checkpoint checksums] in safetensors.hpp ------------------

std::string hex8(uint32_t v) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

// Exactly eight lower-case hex digits, as written: an upper-case one is a flipped bit.
bool parse_hex8(const json& j, uint32_t* out) {
  if (!j.is_string() || j.get_ref<const std::string&>().size() != 8) return false;
  uint32_t v = 0;
  for (char c : j.get_ref<const std::string&>()) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    v = v << 4 | static_cast<uint32_t>(d);
  }
  *out = v;
  return true;
}

// The CRC of the header as written before its own checksum entry was added.
uint32_t header_crc(json header) {
  header[kMetadataKey].erase(kHeaderCrcKey);
  std::string text = dump(header);
  return crc32c(text.data(), text.size());
}

// ---- writing ------------------------------------------------------------------------

// The padded JSON header and, per tensor, its contiguous CPU copy.
struct Layout {
  std::string header;  // padded with spaces to a multiple of 8
  std::vector<Tensor> data;
  uint64_t data_bytes = 0;
};

const void* bytes_of(const Tensor& t) { return t.numel() ? t.raw_data() : nullptr; }
size_t nbytes_of(const Tensor& t) { return static_cast<size_t>(t.numel()) * dtype_size(t.dtype()); }

// (A key given twice keeps its first place and its last value, as m[k] = v would.)
json metadata_json(const Metadata& metadata, const std::string& file) {
  json m = json::object();
  std::unordered_map<std::string, size_t> index;
  for (auto& [k, v] : metadata) {
    if (k == kHeaderCrcKey || k == kTensorCrcKey)
      fail(file, "metadata key '" + k + "' is reserved for nabla's checksums");
    auto [it, fresh] = index.try_emplace(k, m.size());
    if (fresh)
      append_member(m, k, v);  // Note [Linear JSON]
    else
      static_cast<json::object_t::Container&>(m.get_ref<json::object_t&>())[it->second].second = v;
  }
  return m;
}

Layout layout(const NamedTensors& tensors, const Metadata& metadata, const std::string& file) {
  Layout L;
  json h = json::object();
  h[kMetadataKey] = metadata_json(metadata, file);
  json crcs = json::object();
  std::unordered_set<std::string> seen;
  for (auto& [name, t] : tensors) {
    if (name.empty()) fail(file, "a tensor name is empty");
    if (name == kMetadataKey) fail(file, "'__metadata__' is reserved and cannot name a tensor");
    if (!seen.insert(name).second) fail(file, "tensor name '" + name + "' appears twice");
    if (!t.defined()) fail(file, "tensor '" + name + "' is undefined");
    Tensor c = contiguous_raw(cpu_copy(t));  // a GPU tensor is saved from a CPU copy (files hold no device)
    uint64_t n = nbytes_of(c);
    json shape = json::array();
    for (int64_t d : c.sizes()) shape.push_back(d);
    // Names are unique (seen): append, not h[name], which would search (Note [Linear JSON]).
    append_member(h, name,
                  {{"dtype", dtype_code(c.dtype())},
                   {"shape", std::move(shape)},
                   {"data_offsets", {L.data_bytes, L.data_bytes + n}}});
    append_member(crcs, name, hex8(crc32c(bytes_of(c), n)));
    L.data_bytes += n;
    L.data.push_back(std::move(c));
  }
  h[kMetadataKey][kTensorCrcKey] = dump(crcs);
  h[kMetadataKey][kHeaderCrcKey] = hex8(header_crc(h));
  L.header = dump(h);
  L.header.append((8 - L.header.size() % 8) % 8, ' ');
  return L;
}

std::string length_prefix(uint64_t n) {
  std::string out(8, '\0');
  for (int k = 0; k < 8; ++k) out[k] = static_cast<char>((n >> (8 * k)) & 0xff);
  return out;
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
    case DType::i16: return "I16";
  }
  return "?";
}

bool dtype_from_code(const std::string& code, DType* out) {
  for (int k = 0; k < kNumDTypes; ++k)
    if (DType t = static_cast<DType>(k); code == dtype_code(t)) {
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

void save_file(const std::string& path, const NamedTensors& tensors, const Metadata& metadata) {
  Layout L = layout(tensors, metadata, path);
  AtomicFileWriter out(path, "save");  // Note [Atomic files]
  std::string head = length_prefix(L.header.size()) + L.header;
  out.write(head.data(), head.size());
  for (auto& t : L.data) out.write(bytes_of(t), nbytes_of(t));
  out.commit();
}

// ---- reading ------------------------------------------------------------------------

namespace {

// Reads `n` bytes at `offset` of the file into `dst`.
using ReadAt = std::function<void(uint64_t offset, void* dst, uint64_t n)>;

// One tensor's entry in the header, validated against the data section's size.
struct Entry {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;
};

// The header's JSON object; *header_bytes is its length (the data section follows it).
json read_header(uint64_t size, const ReadAt& read, const std::string& name, uint64_t* header_bytes) {
  if (size < 8)
    fail(name, "not a safetensors file: " + std::to_string(size) +
                   " bytes, fewer than the 8 of the header length");
  unsigned char len[8];
  read(0, len, 8);
  uint64_t n = 0;
  for (int k = 0; k < 8; ++k) n |= static_cast<uint64_t>(len[k]) << (8 * k);
  if (n > size - 8)
    fail(name, "header length " + std::to_string(n) + " is past the end of the file (" + std::to_string(size - 8) +
                   " bytes follow it)");
  if (n > kMaxHeaderBytes)
    fail(name, "header length " + std::to_string(n) + " is over the limit of " + std::to_string(kMaxHeaderBytes) +
                   " bytes");
  std::string text(n, '\0');
  if (n) read(8, text.data(), n);
  // JSON text never holds a raw NUL, and nlohmann's parser would take one for the end.
  if (size_t z = text.find('\0'); z != std::string::npos)
    fail(name, "the header holds a NUL byte (at byte " + std::to_string(8 + z) + " of the file)");
  json h;
  std::string why;
  if (!parse_json_linear(text, kMaxHeaderDepth, &h, &why)) fail(name, "the header " + why);  // Note [Linear JSON]
  if (!h.is_object()) fail(name, "the header is not a JSON object");
  *header_bytes = n;
  return h;
}

Metadata read_metadata(const json& v, const std::string& name) {
  if (!v.is_object()) fail(name, "__metadata__ must map strings to strings");
  Metadata out;
  for (auto& [mk, mv] : v.items()) {
    if (!mv.is_string()) fail(name, "__metadata__ must map strings to strings ('" + mk + "' is not a string)");
    out.emplace_back(mk, mv.get<std::string>());
  }
  return out;
}

Entry read_entry(const std::string& key, const json& v, uint64_t data_size, const std::string& name) {
  const std::string what = "tensor '" + key + "'";
  if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets"))
    fail(name, what + ": expected an object with dtype, shape and data_offsets");
  Entry e{key, DType::f32, {}, 0, 0};
  if (!v["dtype"].is_string()) fail(name, what + ": dtype is not a string");
  std::string code = v["dtype"].get<std::string>();
  if (!dtype_from_code(code, &e.dtype))
    fail(name, what + ": unknown dtype '" + code + "' (nabla reads F32, F64, F16, BF16, I64, I32, I16, I8, U8, BOOL)");
  if (!v["shape"].is_array()) fail(name, what + ": shape is not a list");
  for (auto& d : v["shape"]) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0) fail(name, what + ": shape must hold non-negative integers");
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
  return e;
}

// Sorts the entries by offset; they must not overlap, and the last must end the file
// (as Hugging Face's reader wants too): bytes after it are damage.
void check_placement(std::vector<Entry>& entries, uint64_t data_size, const std::string& name) {
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t last_end = 0;
  for (size_t k = 0; k < entries.size(); ++k) {
    const Entry& b = entries[k];
    if (k > 0 && b.begin < entries[k - 1].end) {
      const Entry& a = entries[k - 1];
      fail(name, "tensors '" + a.name + "' and '" + b.name + "' overlap (data_offsets " + offsets_str(a.begin, a.end) +
                     " and " + offsets_str(b.begin, b.end) + ")");
    }
    last_end = std::max(last_end, b.end);
  }
  if (last_end != data_size)
    fail(name, std::to_string(data_size - last_end) + " bytes follow the last tensor (the data section has " +
                   std::to_string(data_size) + " bytes, the tensors end at " + std::to_string(last_end) + ")");
}

// Takes nabla's checksum entries out of `metadata`: none (a file of another tool), or
// the two of them. With `verify`, checks the header's CRC and returns each tensor's.
std::unordered_map<std::string, uint32_t> take_checksums(const json& h, Metadata& metadata,
                                                         const std::vector<Entry>& entries, bool verify,
                                                         const std::string& name) {
  std::optional<std::string> header_hex, tensor_text;
  std::erase_if(metadata, [&](const auto& kv) {
    if (kv.first == kHeaderCrcKey) header_hex = kv.second;
    else if (kv.first == kTensorCrcKey) tensor_text = kv.second;
    else return false;
    return true;
  });
  if (!header_hex && !tensor_text) return {};
  auto damaged = [&](const std::string& what) { fail(name, what + ": the file is damaged"); };
  if (!header_hex || !tensor_text)
    damaged(std::string("the header has '") + (header_hex ? kHeaderCrcKey : kTensorCrcKey) + "' but not '" +
            (header_hex ? kTensorCrcKey : kHeaderCrcKey) + "'");
  if (!verify) return {};
  uint32_t stored, computed = header_crc(h);
  if (!parse_hex8(*header_hex, &stored)) damaged(std::string("'") + kHeaderCrcKey + "' is not 8 lower-case hex digits");
  if (stored != computed)
    damaged(std::string("the header does not match its checksum (") + kHeaderCrcKey + " " + hex8(stored) +
            ", computed " + hex8(computed) + ")");
  json crcs;
  std::string why;
  if (!parse_json_linear(*tensor_text, 1, &crcs, &why) || !crcs.is_object() || crcs.size() != entries.size())
    damaged(std::string("'") + kTensorCrcKey + "' does not list one checksum per tensor");
  std::unordered_map<std::string, const json*> listed;  // crcs[name] would search (Note [Linear JSON])
  listed.reserve(crcs.size());
  for (auto& [k, v] : crcs.items()) listed.emplace(k, &v);
  std::unordered_map<std::string, uint32_t> out;
  out.reserve(entries.size());
  for (auto& e : entries) {
    auto it = listed.find(e.name);
    if (it == listed.end() || !parse_hex8(*it->second, &out[e.name]))
      damaged(std::string("'") + kTensorCrcKey + "' has no valid checksum for tensor '" + e.name + "'");
  }
  return out;
}

// Note [Bool bytes]
// A BOOL element is one byte, and only 0 and 1 mean anything: the kernels add bytes
// (a sum of four "true" bytes 0x02, 0x41, ... gave 265) and compare them (0x02 == true
// was false). safetensors says no more than "BOOL"; PyTorch's and numpy's loaders
// take the bytes as they are and leave such tensors broken in the same ways. nabla
// refuses them instead of guessing (is 0x02 a flipped bit of 0x00 or of 0x03?): the
// error names the tensor, the element and the byte. nabla's own files never hold
// other bytes: every way to make a bool tensor writes 0 or 1.
void check_bool_bytes(const Entry& e, const char* bytes, uint64_t n, const std::string& name) {
  for (uint64_t k = 0; k < n; ++k) {
    unsigned char b = static_cast<unsigned char>(bytes[k]);
    if (b <= 1) continue;
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", b);
    fail(name, "tensor '" + e.name + "': BOOL element " + std::to_string(k) + " holds the byte " + hex +
                   ", but a BOOL byte must be 0 (false) or 1 (true): the file is damaged or was written wrongly");
  }
}

// Reads a tensor's bytes in chunks, checksumming each while it is in cache.
Tensor read_tensor(const Entry& e, uint64_t data_start, const ReadAt& read, const uint32_t* expected,
                   const std::string& name) {
  Tensor t = empty(Shape(e.shape), e.dtype);
  const uint64_t size = e.end - e.begin;
  char* dst = size ? static_cast<char*>(t.raw_data()) : nullptr;
  uint32_t crc = 0;
  for (uint64_t done = 0; done < size;) {
    uint64_t chunk = std::min(kReadChunk, size - done);
    read(data_start + e.begin + done, dst + done, chunk);
    if (expected) crc = crc32c(dst + done, chunk, crc);
    done += chunk;
  }
  if (expected && crc != *expected)
    fail(name, "tensor '" + e.name + "': its bytes do not match their checksum (" + kTensorCrcKey + " " +
                   hex8(*expected) + ", computed " + hex8(crc) + "): the file is damaged");
  if (e.dtype == DType::b8) check_bool_bytes(e, dst, size, name);
  return t;
}

// Parses and validates a file of `size` bytes read through `read`; only the header
// and the tensors' bytes are read, straight into the tensors.
Checkpoint parse_with(uint64_t size, const ReadAt& read, const std::string& name, bool verify) {
  uint64_t header_bytes = 0;
  json h = read_header(size, read, name, &header_bytes);
  const uint64_t data_size = size - 8 - header_bytes;
  Checkpoint out;
  std::vector<Entry> entries;
  for (auto& [key, v] : h.items()) {
    if (key == kMetadataKey) out.metadata = read_metadata(v, name);
    else entries.push_back(read_entry(key, v, data_size, name));
  }
  check_placement(entries, data_size, name);
  auto crcs = take_checksums(h, out.metadata, entries, verify, name);
  for (auto& e : entries) {
    auto it = crcs.find(e.name);
    const uint32_t* expected = it == crcs.end() ? nullptr : &it->second;
    out.tensors.emplace_back(e.name, read_tensor(e, 8 + header_bytes, read, expected, name));
  }
  return out;
}

}  // namespace

Checkpoint parse(const std::string& bytes, const std::string& name, bool verify) {
  return parse_with(
      bytes.size(), [&](uint64_t off, void* dst, uint64_t n) { std::memcpy(dst, bytes.data() + off, n); }, name,
      verify);
}

Checkpoint load_file(const std::string& path, bool verify) {
  if (std::string problem = nul_in_path_problem(path); !problem.empty())  // Note [A NUL byte in a path]
    throw Error("cannot load '" + path_for_message(path) + "': " + problem);
  // O_NONBLOCK: the open of a FIFO without a writer would wait forever.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw Error("cannot load '" + path + "': " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    mode_t mode = st.st_mode;
    ::close(fd);
    throw Error("cannot load '" + path + "': it is " + node_kind(mode) + ", not a regular file");
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
    Checkpoint ck = parse_with(static_cast<uint64_t>(st.st_size), read, path, verify);
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
    // A target made by expand() holds several elements at one memory location: the
    // copy would leave only the last of the file's values there (Note [Overlapping
    // writes] in autograd/inplace.cpp).
    for (size_t d = 0; d < t.sizes().size() && ok; ++d)
      if (t.strides()[d] == 0 && t.sizes()[d] > 1) {
        problems.push_back("not writable: '" + n + "' (" + t.shape_str() + ") was expanded along dim " +
                           std::to_string(d) + " (stride 0), so its elements share memory and cannot take the "
                           "file's values; clone() it");
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
