#include "tensor/dist/liveness.hpp"

#include <sstream>
#include <vector>

namespace nabla::dist {

namespace {

constexpr Millis kBeatPeriod{500};
constexpr Millis kRecheckAfter{1500};

int64_t wall_ms() {
  return std::chrono::duration_cast<Millis>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string key_of(int rank) { return "nabla/alive/" + std::to_string(rank); }

Bytes bytes_of(const std::string& s) { return Bytes(s.begin(), s.end()); }

// A rank's record: "<ms> <entered>" or "exit <entered>"; "" if it has none.
std::string read_record(Store& store, int rank) {
  std::optional<Bytes> v = store.try_get(key_of(rank));
  return v ? std::string(v->begin(), v->end()) : "";
}

// The call a record names after its two numbers ("" if none).
std::string call_of(const std::string& record) {
  size_t first = record.find(' ');
  size_t second = first == std::string::npos ? first : record.find(' ', first + 1);
  return second == std::string::npos ? "" : record.substr(second + 1);
}

uint64_t entered_of(const std::string& record) {
  std::istringstream in(record);
  std::string first;
  uint64_t entered = 0;
  in >> first >> entered;
  return entered;
}

}  // namespace

Liveness::Liveness(const std::string& store_url, int rank, int world_size, Millis timeout)
    : store_(open_store(store_url, false, timeout)), url_(store_url), rank_(rank), world_size_(world_size) {
  beat();
  thread_ = std::thread([this] { run(); });
}

Liveness::~Liveness() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string record = "exit " + std::to_string(entered_.load());
    if (!calling_.empty()) record += " " + calling_;  // its last call, for a peer's diagnosis
    store_->set(key_of(rank_), bytes_of(record));
  } catch (...) {  // the store may be gone with rank 0; the others learn it from that
  }
}

uint64_t Liveness::enter_collective(std::string what) {
  std::lock_guard<std::mutex> lock(mutex_);
  calling_ = std::move(what);
  return ++entered_;
}

void Liveness::beat() {
  std::string record = std::to_string(wall_ms()) + " ";
  {
    std::lock_guard<std::mutex> lock(mutex_);
    record += std::to_string(entered_.load());
    if (!calling_.empty()) record += " " + calling_;
  }
  store_->set(key_of(rank_), bytes_of(record));
}

void Liveness::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, kBeatPeriod, [this] { return stopping_; })) {
    lock.unlock();
    try {
      beat();
    } catch (...) {  // the store is gone: diagnose() reports it
    }
    lock.lock();
  }
}

std::string Liveness::diagnose(uint64_t number) {
  std::vector<std::string> first(world_size_), second(world_size_);
  try {
    for (int r = 0; r < world_size_; ++r) first[r] = read_record(*store_, r);
    std::this_thread::sleep_for(kRecheckAfter);
    for (int r = 0; r < world_size_; ++r) second[r] = read_record(*store_, r);
  } catch (const std::exception&) {
    return "the group's store (" + store_->describe() +
           ") cannot be reached either, so rank 0, which serves it, has probably died or exited";
  }
  std::string own_call;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    own_call = calling_;
  }
  // ", which was all_reduce(op=sum) of f32[5] where this rank calls ... of f32[4]"
  auto differing_call = [&](const std::string& record) -> std::string {
    std::string call = call_of(record);
    if (entered_of(record) != number || call.empty() || call == own_call) return "";
    return ", which was " + call + " where this rank calls " + own_call;
  };
  std::vector<std::string> blamed;
  for (int r = 0; r < world_size_; ++r) {
    if (r == rank_) continue;
    const std::string& now = second[r];
    std::string who = "rank " + std::to_string(r);
    if (now.empty())
      blamed.push_back(who + " never joined the group's heartbeats");
    else if (now.rfind("exit", 0) == 0)
      blamed.push_back(who + " has left the group (it finished or destroyed it after collective #" +
                       std::to_string(entered_of(now)) + differing_call(now) + ")");
    else if (now == first[r])
      blamed.push_back(who + " stopped answering (it died or was killed; its last heartbeat was at collective #" +
                       std::to_string(entered_of(now)) + ")");
    else if (entered_of(now) < number)
      blamed.push_back(who + " is alive but has not joined this collective (it is at #" +
                       std::to_string(entered_of(now)) + "): it hangs, or runs different code");
    else if (entered_of(now) == number && !call_of(now).empty() && call_of(now) != own_call)
      blamed.push_back(who + " is in collective #" + std::to_string(number) + " too, but calls " + call_of(now) +
                       " where this rank calls " + own_call);
  }
  if (blamed.empty()) return "every rank is alive and has joined this collective";
  std::string out;
  for (size_t i = 0; i < blamed.size(); ++i) out += (i ? "; " : "") + blamed[i];
  return out;
}

}  // namespace nabla::dist
