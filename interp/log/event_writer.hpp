// An events file of TensorBoard's: what torch.utils.tensorboard's FileWriter writes.
// A file events.out.tfevents.<time>.<host>.<pid>.<n><suffix> in a log folder, whose
// records (TFRecord framing, tfrecord.hpp) are serialized tensorboard.Event messages,
// the first holding file_version "brain.Event:2". Writes are buffered and flushed
// every max_queue events or flush_secs seconds, on flush() and close(), when the
// writer is destroyed and when the process exits (std::exit or the end of main), so
// that nothing written is lost. Knows nothing of the language; errors are
// nabla::Error naming the file or folder.
#pragma once
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "interp/log/proto/event.pb.h"

namespace nabla::tensorboard_log {

// Seconds since the epoch, as Python's time.time().
double wall_time_now();
// This machine's name, as socket.gethostname() (in the file name and PyTorch's default folder).
std::string host_name();

class EventFileWriter {
 public:
  // Makes log_dir (and its parents) when missing and opens a new events file there,
  // writing its first record: the folder is checked here, not at the first write
  // (a path that is a file, or a folder that cannot be written, is an error now).
  EventFileWriter(const std::string& log_dir, const std::string& filename_suffix, int64_t max_queue, double flush_secs);
  ~EventFileWriter();
  EventFileWriter(const EventFileWriter&) = delete;
  EventFileWriter& operator=(const EventFileWriter&) = delete;

  // One event: wall_time, step (unset without one) and the summary.
  void add_summary(const ::tensorboard::Summary& summary, std::optional<int64_t> step, double wall_time);
  void add_event(const ::tensorboard::Event& event);
  void flush();
  void close();  // flushes; a write after it is an error
  bool closed() const { return file_ == nullptr; }
  const std::string& path() const { return path_; }
  const std::string& log_dir() const { return log_dir_; }

 private:
  std::string log_dir_, path_;
  std::FILE* file_ = nullptr;
  std::string pending_;  // framed records not yet written
  int64_t pending_events_ = 0;
  int64_t max_queue_;
  double flush_secs_, last_flush_;
};

}  // namespace nabla::tensorboard_log
