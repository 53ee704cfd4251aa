#include "interp/jupyter/connection_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "nlohmann/json.hpp"

namespace nabla::jupyter {

namespace {

namespace nl = nlohmann;

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw std::runtime_error("connection file " + path + ": " + what);
}

std::string string_field(const nl::json& j, const std::string& path, const char* name) {
  if (!j.contains(name)) bad(path, std::string("missing \"") + name + "\"");
  if (!j[name].is_string()) bad(path, std::string("\"") + name + "\" must be a string, got " + j[name].dump());
  return j[name].get<std::string>();
}

// A port: a number from 1 to 65535 (Jupyter writes numbers; a string of digits is accepted too).
std::string port_field(const nl::json& j, const std::string& path, const char* name) {
  if (!j.contains(name)) bad(path, std::string("missing \"") + name + "\"");
  const nl::json& v = j[name];
  long port = -1;
  if (v.is_number_integer())
    port = v.get<long>();
  else if (v.is_string() && !v.get<std::string>().empty() &&
           v.get<std::string>().find_first_not_of("0123456789") == std::string::npos &&
           v.get<std::string>().size() <= 5)
    port = std::stol(v.get<std::string>());
  if (port < 1 || port > 65535) bad(path, std::string("\"") + name + "\" must be a port number, got " + v.dump());
  return std::to_string(port);
}

}  // namespace

xeus::xconfiguration read_connection_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) bad(path, std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  nl::json j = nl::json::parse(text.str(), nullptr, false);
  if (j.is_discarded()) bad(path, "not valid JSON");
  if (!j.is_object()) bad(path, "expected a JSON object, got " + j.dump().substr(0, 40));
  xeus::xconfiguration config;
  config.m_transport = string_field(j, path, "transport");
  if (config.m_transport != "tcp" && config.m_transport != "ipc")
    bad(path, "\"transport\" must be \"tcp\" or \"ipc\", got \"" + config.m_transport + "\"");
  config.m_ip = string_field(j, path, "ip");
  config.m_control_port = port_field(j, path, "control_port");
  config.m_shell_port = port_field(j, path, "shell_port");
  config.m_stdin_port = port_field(j, path, "stdin_port");
  config.m_iopub_port = port_field(j, path, "iopub_port");
  config.m_hb_port = port_field(j, path, "hb_port");
  config.m_key = string_field(j, path, "key");
  config.m_signature_scheme =
      j.contains("signature_scheme") ? string_field(j, path, "signature_scheme") : "hmac-sha256";
  const char* const schemes[] = {"hmac-sha256", "hmac-sha1", "hmac-sha224", "hmac-sha384", "hmac-sha512", "hmac-md5"};
  if (std::find(std::begin(schemes), std::end(schemes), config.m_signature_scheme) == std::end(schemes))
    bad(path,
        "\"signature_scheme\" must be one of hmac-sha256, hmac-sha1, hmac-sha224, hmac-sha384, hmac-sha512, "
        "hmac-md5; got \"" +
            config.m_signature_scheme + "\"");
  return config;
}

}  // namespace nabla::jupyter
