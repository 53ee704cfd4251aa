// See Note [Collective checks] in call_check.hpp.
#include "tensor/dist/call_check.hpp"

#include <map>
#include <vector>

#include "tensor/dist/communicator.hpp"
#include "tensor/error.hpp"

namespace nabla::dist {

namespace {

// "NABLA" and a version: a word a peer of another build would not write.
constexpr int64_t kMagic = 0x4e41424c41000001;

// Word positions in CallSignature::words().
enum Word : size_t { magic, call, op, root, rank, has_tensor, dtype, device_kind, device_index, contiguous,
                     ndim, dims_hash, first_dim };
static_assert(first_dim + CallSignature::kMaxDims == CallSignature::kWords, "words out of line with the layout");

// splitmix64's finalizer: every input bit moves every output bit.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// `skip` words (a bit set) are left out: those that differ between ranks by design.
uint64_t hash_words(const int64_t* w, size_t n, uint64_t skip = 0) {
  uint64_t h = 0x6e61626c61ull;
  for (size_t k = 0; k < n; ++k)
    if (!(k < 64 && (skip >> k & 1))) h = mix(h ^ static_cast<uint64_t>(w[k]));
  return h;
}

const char* op_name(int64_t op) {
  switch (op) {
    case 0: return "sum";
    case 1: return "avg";
    case 2: return "max";
    case 3: return "min";
  }
  return "?";
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t k = 0; k < ranks.size(); ++k) {
    if (k == 4 && ranks.size() > 5) return out + ", ... (" + std::to_string(ranks.size()) + " in all)";
    out += (k ? ", " : "") + std::to_string(ranks[k]);
  }
  return out;
}

// The fields in which two signatures differ: "the shape", "the dtype and the shape".
// (`calls`: compare the calls too; a send and its recv differ there by design.)
std::string differences(const CallSignature& a, const CallSignature& b, bool calls = true) {
  std::vector<std::string> what;
  if (calls && a.call != b.call) what.push_back("the call");
  if (calls && a.call == b.call && a.op != b.op) what.push_back("the reduce op");
  if (calls && a.call == b.call && a.root != b.root) what.push_back("the source rank");
  if (a.has_tensor && b.has_tensor) {
    if (a.dtype != b.dtype) what.push_back("the dtype");
    if (a.shape != b.shape || a.more_dims != b.more_dims)
      what.push_back(a.shape.size() == b.shape.size() && a.more_dims == b.more_dims ? "the shape" : "the number of dims");
    if (a.device.kind != b.device.kind) what.push_back("the device");
    if (a.contiguous != b.contiguous) what.push_back("the layout (contiguous or not)");
  } else if (a.has_tensor != b.has_tensor) {
    what.push_back("whether a tensor is given");
  }
  std::string out;
  for (size_t k = 0; k < what.size(); ++k) out += (k == 0 ? "" : k + 1 == what.size() ? " and " : ", ") + what[k];
  return out;
}

[[noreturn]] void disagree(const CallSignature& mine, uint64_t number, const std::string& why) {
  throw Error(std::string("dist.") + collective_name(mine.call) + ": rank " + std::to_string(mine.rank) +
              ": the ranks disagree on collective #" + std::to_string(number) + ": " + why +
              ". Every rank must make the same calls in the same order, with tensors of the same shape and dtype "
              "(nothing was sent; the group is still usable)");
}

}  // namespace

const char* collective_name(Collective c) {
  switch (c) {
    case Collective::all_reduce: return "all_reduce";
    case Collective::broadcast: return "broadcast";
    case Collective::all_gather: return "all_gather";
    case Collective::reduce_scatter: return "reduce_scatter";
    case Collective::barrier: return "barrier";
    case Collective::send: return "send";
    case Collective::recv: return "recv";
  }
  return "?";
}

CallSignature make_signature(Collective call, int rank, const Tensor* t, int64_t op, int64_t root) {
  CallSignature s;
  s.call = call;
  s.op = op;
  s.root = root;
  s.rank = rank;
  if (t && t->defined()) {
    s.has_tensor = true;
    s.dtype = t->dtype();
    s.device = t->device();
    s.contiguous = t->is_contiguous();
    s.shape = t->sizes();
  }
  return s;
}

CallSignature::Words CallSignature::words() const {
  Words w{};
  w[magic] = kMagic;
  w[Word::call] = static_cast<int64_t>(call);
  w[Word::op] = op;
  w[Word::root] = root;
  w[Word::rank] = rank;
  w[Word::has_tensor] = has_tensor;
  w[Word::dtype] = has_tensor ? static_cast<int64_t>(dtype) : -1;
  w[device_kind] = has_tensor ? static_cast<int64_t>(device.kind) : -1;
  w[device_index] = has_tensor ? device.index : -1;
  w[Word::contiguous] = contiguous;
  w[ndim] = static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims(shape.begin(), shape.end());
  w[dims_hash] = static_cast<int64_t>(hash_words(dims.data(), dims.size()));
  for (size_t k = 0; k < kMaxDims && k < dims.size(); ++k) w[first_dim + k] = dims[k];
  return w;
}

CallSignature CallSignature::from_words(const Words& w) {
  bool sane = w[magic] == kMagic && w[Word::call] >= 0 && w[Word::call] <= static_cast<int64_t>(Collective::recv) &&
              w[ndim] >= 0 && w[Word::dtype] >= -1 && w[Word::dtype] < kNumDTypes && w[device_kind] >= -1 &&
              w[device_kind] <= 1;
  if (!sane) throw Error("dist: a peer sent a call signature this nabla cannot read (a rank of another nabla version?)");
  CallSignature s;
  s.call = static_cast<Collective>(w[Word::call]);
  s.op = w[Word::op];
  s.root = w[Word::root];
  s.rank = w[Word::rank];
  s.has_tensor = w[Word::has_tensor] != 0;
  if (s.has_tensor) {
    s.dtype = static_cast<DType>(w[Word::dtype]);
    s.device = Device{static_cast<DeviceKind>(w[device_kind]), static_cast<int>(w[device_index])};
  }
  s.contiguous = w[Word::contiguous] != 0;
  // Only the first kMaxDims dims travel; a longer shape shows them and "...".
  for (int64_t k = 0; k < w[ndim] && k < static_cast<int64_t>(kMaxDims); ++k) s.shape.push_back(w[first_dim + k]);
  s.more_dims = w[ndim] > static_cast<int64_t>(kMaxDims);
  return s;
}

namespace {
// Not the caller's rank, nor its GPU (each rank of an NCCL group has its own).
uint64_t digest_of(const CallSignature::Words& w) {
  return hash_words(w.data(), w.size(), uint64_t{1} << Word::rank | uint64_t{1} << device_index);
}
}  // namespace

uint64_t CallSignature::digest() const { return digest_of(words()); }

std::string CallSignature::describe() const {
  std::string out = collective_name(call);
  out += "(";
  if (op >= 0) out += std::string("op=") + op_name(op);
  if (root >= 0) out += std::string(call == Collective::send ? "dst=" : "src=") + std::to_string(root);
  out += ")";
  if (!has_tensor) return call == Collective::barrier ? out : out + " without a tensor";
  out += contiguous ? " of " : " of a non-contiguous ";
  out += dtype_name(dtype);
  out += "[";
  for (size_t k = 0; k < shape.size(); ++k) out += (k ? ", " : "") + std::to_string(shape[k]);
  out += more_dims ? ", ...]" : "]";
  if (device.kind != DeviceKind::cpu) out += " on " + device.str();
  return out;
}

uint32_t data_tag(const CallSignature& s) {
  CallSignature key = s;
  if (s.call == Collective::send || s.call == Collective::recv) {
    // Both ends of one transfer must get the same tag: name it from the sender's side.
    bool sending = s.call == Collective::send;
    key.call = Collective::send;
    key.root = sending ? s.root : s.rank;  // the receiver
    key.op = sending ? s.rank : s.root;    // the sender
  }
  uint32_t tag = static_cast<uint32_t>(key.digest() >> 32);
  return tag >= kCheckTag ? tag - 16 : tag;
}

void check_collective(const CheckTransport& transport, const CallSignature& mine, uint64_t number) {
  if (transport.world_size <= 1) return;
  uint64_t d = mine.digest();
  int64_t both[2] = {static_cast<int64_t>(d), static_cast<int64_t>(~d)};
  transport.all_reduce_max(both, 2);
  if (both[0] == ~both[1]) return;  // max == min: every rank has this digest
  CallSignature::Words own = mine.words();
  std::vector<int64_t> all(CallSignature::kWords * static_cast<size_t>(transport.world_size));
  transport.all_gather(own.data(), all.data(), CallSignature::kWords);
  // Group the ranks by what they call, in rank order, and say what sets them apart.
  std::map<uint64_t, std::pair<CallSignature, std::vector<int>>> groups;
  std::vector<uint64_t> order;
  for (int r = 0; r < transport.world_size; ++r) {
    CallSignature::Words w;
    std::copy_n(all.begin() + static_cast<ptrdiff_t>(r) * CallSignature::kWords, CallSignature::kWords, w.begin());
    CallSignature s = CallSignature::from_words(w);
    uint64_t key = digest_of(w);  // of all the dims, where s keeps kMaxDims
    auto [it, fresh] = groups.try_emplace(key, s, std::vector<int>{});
    if (fresh) order.push_back(key);
    it->second.second.push_back(r);
  }
  std::string why;
  for (size_t k = 0; k < order.size() && k < 4; ++k) {
    const auto& [s, ranks] = groups.at(order[k]);
    why += (k ? "; " : "") + rank_list(ranks) + (ranks.size() == 1 ? " calls " : " call ") + s.describe();
  }
  if (order.size() > 4) why += "; and " + std::to_string(order.size() - 4) + " other calls";
  if (order.size() >= 2)
    why += " (they differ in " + differences(groups.at(order[0]).first, groups.at(order[1]).first) + ")";
  disagree(mine, number, why);
}

void check_point_to_point(const CheckTransport& transport, const CallSignature& mine, int peer, uint64_t number) {
  CallSignature::Words own = mine.words(), other{};
  transport.swap(peer, own.data(), other.data(), CallSignature::kWords);
  CallSignature theirs = CallSignature::from_words(other);
  const CallSignature& sender = mine.call == Collective::send ? mine : theirs;
  const CallSignature& receiver = mine.call == Collective::send ? theirs : mine;
  bool paired = sender.call == Collective::send && receiver.call == Collective::recv && sender.root == receiver.rank &&
                receiver.root == sender.rank;
  bool same_data = sender.dtype == receiver.dtype && sender.shape == receiver.shape &&
                   sender.device.kind == receiver.device.kind && sender.contiguous == receiver.contiguous;
  // Longer shapes than kMaxDims travel as a hash: compare that too.
  bool same_dims = own[dims_hash] == other[dims_hash] && own[ndim] == other[ndim];
  if (paired && same_data && same_dims) return;
  std::string why = "rank " + std::to_string(mine.rank) + " calls " + mine.describe() + ", rank " +
                    std::to_string(theirs.rank) + " calls " + theirs.describe();
  if (mine.call == theirs.call)
    why += mine.call == Collective::send ? " (both send)" : " (both receive)";
  else if (paired)
    why += " (they differ in " + differences(mine, theirs, /*calls=*/false) + ")";
  disagree(mine, number, why);
}

}  // namespace nabla::dist
