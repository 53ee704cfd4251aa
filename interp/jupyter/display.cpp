#include "interp/jupyter/display.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace nabla::jupyter {

std::string base64(const std::string& bytes) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16 | static_cast<uint8_t>(bytes[i + 1]) << 8 |
                 static_cast<uint8_t>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[(n >> shift) & 63];
  }
  size_t rest = bytes.size() - i;  // 0, 1 or 2 bytes left: "xx==" or "xxx="
  if (rest > 0) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    if (rest == 2) n |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += rest == 2 ? kAlphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

nlohmann::json mime_json(const MimeBundle& bundle) {
  nlohmann::json data = nlohmann::json::object();
  for (const auto& [mime, content] : bundle) data[mime] = mime == "image/png" ? base64(content) : content;
  return data;
}

namespace {

// The length of s's prefix that does not end inside a UTF-8 sequence.
size_t utf8_whole_prefix(const std::string& s) {
  size_t start = s.size();  // where the last sequence starts
  while (start > 0 && s.size() - start < 4 && (static_cast<unsigned char>(s[start - 1]) & 0xC0) == 0x80) --start;
  if (start == 0) return s.size();
  unsigned char lead = static_cast<unsigned char>(s[start - 1]);
  size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  return s.size() - (start - 1) < length ? start - 1 : s.size();
}

void flush_standard_streams() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(stdout);
  std::fflush(stderr);
}

}  // namespace

FdCapture::FdCapture(int fd, std::function<void(const std::string&)> sink) : fd_(fd), sink_(std::move(sink)) {
  int ends[2];
  flush_standard_streams();
  if (pipe(ends) != 0) return;  // no capture: the output goes where it went
  saved_ = dup(fd_);
  if (saved_ < 0 || dup2(ends[1], fd_) < 0) {
    close(ends[0]);
    close(ends[1]);
    if (saved_ >= 0) close(saved_);
    saved_ = -1;
    return;
  }
  close(ends[1]);  // fd_ is now the only write end: putting fd_ back ends the reader
  read_end_ = ends[0];
  reader_ = std::thread([this] {
    char chunk[4096];
    std::string pending;  // a UTF-8 sequence cut by the chunk's end waits for its rest
    for (;;) {
      ssize_t n = read(read_end_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      pending.append(chunk, static_cast<size_t>(n));
      size_t whole = utf8_whole_prefix(pending);
      deliver(pending.substr(0, whole));
      pending.erase(0, whole);
    }
    deliver(pending);
  });
}

// On the reader thread, where an exception would end the process: a message that
// cannot be sent is lost, the cell goes on.
void FdCapture::deliver(const std::string& text) {
  if (text.empty()) return;
  try {
    sink_(text);
  } catch (const std::exception&) {
  }
}

FdCapture::~FdCapture() {
  if (saved_ < 0) return;
  flush_standard_streams();
  dup2(saved_, fd_);
  close(saved_);
  reader_.join();
  close(read_end_);
}

}  // namespace nabla::jupyter
