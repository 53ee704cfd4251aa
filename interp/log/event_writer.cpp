// EventFileWriter (event_writer.hpp).
#include "interp/log/event_writer.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <unordered_set>

#include "interp/log/tfrecord.hpp"
#include "tensor/error.hpp"
#include "tensor/file_kind.hpp"

namespace nabla::tensorboard_log {

namespace {

// Every open writer, so that the process's exit flushes them (as PyTorch's atexit
// hook does): a script that never calls close() still leaves every event on disk.
struct OpenWriters {
  std::mutex mutex;
  std::unordered_set<EventFileWriter*> writers;
};

OpenWriters& open_writers() {
  static OpenWriters* registry = [] {
    auto* r = new OpenWriters;  // never freed: the exit hook may run after statics die
    std::atexit([] {
      OpenWriters& all = open_writers();
      std::lock_guard<std::mutex> lock(all.mutex);
      for (EventFileWriter* w : all.writers) {
        try {
          w->flush();
        } catch (const Error&) {  // a full disk at exit: nothing left to tell
        }
      }
    });
    return r;
  }();
  return *registry;
}

// events.out.tfevents.<%010d time>.<host>.<pid>.<n>: n counts the files this process
// opened, so two writers opened in one second get two files (PyTorch's _global_uid).
std::string events_file_name(const std::string& suffix) {
  static std::atomic<int64_t> opened{0};
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "%010lld", static_cast<long long>(wall_time_now()));
  return "events.out.tfevents." + std::string(stamp) + "." + host_name() + "." + std::to_string(::getpid()) + "." +
         std::to_string(opened++) + suffix;
}

// log_dir made when missing; an error when it is something else than a folder.
void make_log_dir(const std::string& log_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(log_dir, ec) && !fs::is_directory(log_dir, ec))
    throw Error("cannot log to " + log_dir + ": it is not a folder");
  fs::create_directories(log_dir, ec);
  if (ec) throw Error("cannot make the log folder " + log_dir + ": " + ec.message());
}

}  // namespace

std::string host_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return "localhost";
  return host;
}

double wall_time_now() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

EventFileWriter::EventFileWriter(const std::string& log_dir, const std::string& filename_suffix, int64_t max_queue,
                                 double flush_secs)
    : log_dir_(log_dir), max_queue_(max_queue), flush_secs_(flush_secs), last_flush_(wall_time_now()) {
  for (const std::string* part : {&log_dir, &filename_suffix})  // Note [A NUL byte in a path]
    if (std::string problem = nul_in_path_problem(*part); !problem.empty())
      throw Error("cannot write in the log folder " + path_for_message(log_dir) + ": " + problem);
  make_log_dir(log_dir);
  path_ = (std::filesystem::path(log_dir) / events_file_name(filename_suffix)).string();
  file_ = std::fopen(path_.c_str(), "wb");
  if (!file_) throw Error("cannot write in the log folder " + log_dir + ": " + std::strerror(errno));
  ::tensorboard::Event first;
  first.set_wall_time(wall_time_now());
  first.set_file_version("brain.Event:2");
  first.mutable_source_metadata()->set_writer("nabla");
  try {
    add_event(first);
    flush();
  } catch (const Error&) {
    std::fclose(file_);
    file_ = nullptr;
    throw;
  }
  OpenWriters& all = open_writers();
  std::lock_guard<std::mutex> lock(all.mutex);
  all.writers.insert(this);
}

EventFileWriter::~EventFileWriter() {
  try {
    close();
  } catch (const Error&) {  // a destructor cannot report a full disk
  }
}

void EventFileWriter::add_summary(const ::tensorboard::Summary& summary, std::optional<int64_t> step,
                                  double wall_time) {
  ::tensorboard::Event event;
  event.set_wall_time(wall_time);
  if (step) event.set_step(*step);
  *event.mutable_summary() = summary;
  add_event(event);
}

void EventFileWriter::add_event(const ::tensorboard::Event& event) {
  if (closed()) throw Error("the events file " + path_ + " is closed");
  pending_ += tfrecord(event.SerializeAsString());
  ++pending_events_;
  if (pending_events_ >= max_queue_ || wall_time_now() - last_flush_ >= flush_secs_) flush();
}

void EventFileWriter::flush() {
  if (closed()) return;
  last_flush_ = wall_time_now();
  if (pending_.empty()) return;
  bool written = std::fwrite(pending_.data(), 1, pending_.size(), file_) == pending_.size();
  bool flushed = written && std::fflush(file_) == 0;
  pending_.clear();
  pending_events_ = 0;
  if (!flushed) throw Error("cannot write the events file " + path_ + ": " + std::strerror(errno));
}

void EventFileWriter::close() {
  if (closed()) return;
  {
    OpenWriters& all = open_writers();
    std::lock_guard<std::mutex> lock(all.mutex);
    all.writers.erase(this);
  }
  std::FILE* f = file_;
  std::string error;
  try {
    flush();
  } catch (const Error& e) {
    error = e.what();
  }
  file_ = nullptr;
  if (std::fclose(f) != 0 && error.empty())
    error = "cannot close the events file " + path_ + ": " + std::strerror(errno);
  if (!error.empty()) throw Error(error);
}

}  // namespace nabla::tensorboard_log
