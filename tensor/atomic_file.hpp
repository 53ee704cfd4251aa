// Files written whole or not at all: checkpoints (safetensors.cpp), drawings (viz/),
// profiler traces. Every file nabla writes for the user goes through here.
//
// Note [Atomic files]
// The bytes go to `path + ".tmp"`; commit() fsyncs it, renames it over `path` and
// fsyncs the folder, so a reader (or a process started after a crash or a SIGKILL)
// finds the old file or the whole new one, never a part. The temporary name is fixed,
// not unique: a save killed half way leaves one `.tmp`, which the next save of the
// same path truncates and reuses, so killed saves never pile files up. Two writers of
// the same path take turns through an flock on the temporary file (the lock is taken
// again when the file it was held on has been renamed away meanwhile), so neither
// can rename the other's half-written bytes. The temporary file is opened with
// O_NOFOLLOW: a symlink planted at `path.tmp` is an error, never a file overwritten.
//
// Note [Save targets]
// A rename replaces whatever node has the name, so only a regular file (or no file)
// may be the target: a FIFO, a character or block device (/dev/null: as root, a save
// there would turn it into a plain file for the whole machine), a socket or a folder
// at `path` is an error that names what it is, and nothing is created. A symlink is
// followed, as cp, editors and shell redirection do: the new bytes replace its final
// target (which must be a regular file; a symlink to nothing is an error), and the
// link stays a link. The temporary file sits beside that target, so the rename stays
// within one folder. The target is checked when the writer opens and again right
// before the rename; a node put there in between by another process can still be
// replaced, which no rename-based writer can rule out. The temporary name itself must
// be a regular file or free: anything else there is an error, never removed.
#pragma once
#include <cstddef>
#include <string>

namespace nabla {

class AtomicFileWriter {
 public:
  // Errors read "<what>: cannot write '<path>': <reason>".
  AtomicFileWriter(std::string path, std::string what);
  ~AtomicFileWriter();  // without commit(): removes the temporary file
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const void* data, size_t n);
  void commit();  // fsync, rename over path, fsync the folder

  static std::string temp_path(const std::string& path) { return path + ".tmp"; }

 private:
  [[noreturn]] void fail(const std::string& reason);
  // The regular file (or free name) that `path_` names, symlinks followed; an Error
  // for any other kind of node (Note [Save targets]).
  std::string resolve_target();
  void open_temp();
  std::string path_, target_, temp_, what_;
  int fd_ = -1;
};

// The whole of `bytes` through an AtomicFileWriter.
void write_file_atomically(const std::string& path, const std::string& bytes, const std::string& what);

}  // namespace nabla
