// What a file-system node is, in words for messages, and the one check that every
// reader of a data file makes before opening it: a folder, a FIFO, a device or a socket
// is not a data file (a FIFO without a writer or /dev/zero would block or read
// forever; a folder read as an empty file). Writers have their own rules (Note [Save
// targets] in atomic_file.hpp), program files theirs (interp/app/program_file.hpp: pipes
// are programs).
#pragma once
#include <sys/types.h>

#include <string>

namespace nabla {

// "a folder", "a FIFO", "a character device", "a block device", "a socket",
// "a symlink", or "not a regular file".
std::string node_kind(mode_t mode);

// "" when `path` names a regular file (symlinks followed), else the reason, ready to
// follow "cannot read 'PATH': ": "No such file or directory", "it is a folder, not a
// regular file".
std::string regular_file_problem(const std::string& path);

// Note [A NUL byte in a path]
// The system's calls take a path as a C string, so "ckpt.safetensors\0x" named the
// file "ckpt.safetensors": a save wrote, and a load or an import read, another file
// than the one asked for, silently (Python refuses it: "embedded null byte"). Every
// reader (regular_file_problem, program files, safetensors) and the atomic writer ask
// this first. "" for a path without one, else the reason, ready to follow
// "cannot read 'PATH': ".
std::string nul_in_path_problem(const std::string& path);

// `path` for a message, a NUL byte written `\0`: an Error's text is a C string, and the
// message of one quoting such a path ended at its NUL.
std::string path_for_message(const std::string& path);

}  // namespace nabla
