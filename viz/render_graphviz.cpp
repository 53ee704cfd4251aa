// Laying DOT out in-process with Graphviz's cgraph + gvc: the backend of
// viz/render_backend.hpp in a build with Graphviz (NABLA_GRAPHVIZ=ON), and the only
// file of nabla that includes Graphviz's headers.
//
// Graphviz normally finds its plugins through a config file that `dot -c` writes at
// install time; a missing or stale one means "Layout type: dot not recognized". We
// never read it: the dot layout and the core renderers (svg, dot) are linked into
// the binary and registered with gvContextPlugins, as Graphviz's demo/simple.c does.
//
// PNG comes from the gd plugin, which is loaded with dlopen on the first PNG
// instead of being linked: linking it would pull cairo, X11, libheif, libavif and
// ~55 other shared libraries into every nabla process (about 20 ms more per start)
// for a format few runs ask for.
#include <dlfcn.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>

#include <memory>
#include <mutex>
#include <vector>

#include "tensor/error.hpp"
#include "viz/graphviz.hpp"
#include "viz/render_backend.hpp"

// The plugin tables of libgvplugin_dot_layout and libgvplugin_core (C symbols).
extern "C" {
extern gvplugin_library_t gvplugin_dot_layout_LTX_library;
extern gvplugin_library_t gvplugin_core_LTX_library;
}

#ifndef NABLA_GRAPHVIZ_PLUGIN_DIR
#define NABLA_GRAPHVIZ_PLUGIN_DIR "/usr/lib/x86_64-linux-gnu/graphviz"
#endif
#ifndef NABLA_GRAPHVIZ_PLUGIN_SOVERSION
#define NABLA_GRAPHVIZ_PLUGIN_SOVERSION "6"
#endif

namespace nabla::viz {

namespace {

// Graphviz keeps global state (its error hook, cgraph's dictionaries), so one call
// at a time; this lock also guards the message buffer below.
std::mutex graphviz_mutex;
std::string* graphviz_messages = nullptr;

int collect_graphviz_message(char* text) {
  if (graphviz_messages) graphviz_messages->append(text);
  return 0;
}

// The gd plugin's table, loaded once (caller holds graphviz_mutex). Never unloaded:
// contexts keep pointers into it.
gvplugin_library_t* gd_plugin(std::string* why_not) {
  static gvplugin_library_t* library = nullptr;
  static std::string failure;
  static bool tried = false;
  if (!tried) {
    tried = true;
    std::string path = NABLA_GRAPHVIZ_PLUGIN_DIR "/libgvplugin_gd.so." NABLA_GRAPHVIZ_PLUGIN_SOVERSION;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      failure = std::string("PNG needs Graphviz's gd plugin (package libgvc6): ") + dlerror();
    } else {
      library = static_cast<gvplugin_library_t*>(dlsym(handle, "gvplugin_gd_LTX_library"));
      if (!library) failure = "PNG needs Graphviz's gd plugin, but " + path + " has no gvplugin_gd_LTX_library";
    }
  }
  if (!library && why_not) *why_not = failure;
  return library;
}

// One Graphviz job: a context with our plugins, the parsed graph and its layout,
// with Graphviz's messages collected instead of printed (caller holds the lock).
class GraphvizJob {
 public:
  // `gd`: the gd plugin for PNG, or null. It goes in the list the context starts
  // with, not in later (gvAddLibrary): the context picks its text-layout plugin when
  // it starts, and PNG needs gd's, which measures text with the font it draws.
  explicit GraphvizJob(gvplugin_library_t* gd) {
    graphviz_messages = &messages_;
    previous_hook_ = agseterrf(collect_graphviz_message);
    plugins_ = {
        {"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
        {"gvplugin_core_LTX_library", &gvplugin_core_LTX_library},
    };
    if (gd) plugins_.push_back({"gvplugin_gd_LTX_library", gd});
    plugins_.push_back({nullptr, nullptr});
    context_ = gvContextPlugins(plugins_.data(), 0);
  }
  ~GraphvizJob() {
    if (graph_ && laid_out_) gvFreeLayout(context_, graph_);
    if (graph_) agclose(graph_);
    gvFreeContext(context_);
    agseterrf(previous_hook_);
    graphviz_messages = nullptr;
  }
  GraphvizJob(const GraphvizJob&) = delete;
  GraphvizJob& operator=(const GraphvizJob&) = delete;

  void parse(const std::string& dot_text) {
    graph_ = agmemread(dot_text.c_str());
    if (!graph_) fail("the DOT text does not parse");
    check("the DOT text does not parse");
  }

  void layout() {
    laid_out_ = gvLayout(context_, graph_, "dot") == 0;
    if (!laid_out_) fail("dot layout failed");
    check("dot layout failed");
  }

  std::string render(const char* format) {
    char* data = nullptr;
    unsigned int length = 0;
    int rc = gvRenderData(context_, graph_, format, &data, &length);
    std::string out = rc == 0 && data ? std::string(data, length) : std::string();
    gvFreeRenderData(data);
    if (rc != 0) fail(std::string("rendering ") + format + " failed");
    check(std::string("rendering ") + format + " failed");
    return out;
  }

 private:
  // Graphviz reports some errors (a bad HTML label) and still returns success.
  void check(const std::string& what) {
    if (messages_.find("Error") != std::string::npos) fail(what);
  }
  [[noreturn]] void fail(const std::string& what) {
    std::string detail = messages_;
    while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' ')) detail.pop_back();
    throw Error("render: " + what + (detail.empty() ? "" : ": " + detail));
  }

  std::string messages_;
  std::vector<lt_symlist_t> plugins_;  // the context keeps a pointer to this list
  agusererrf previous_hook_ = nullptr;
  GVC_t* context_ = nullptr;
  Agraph_t* graph_ = nullptr;
  bool laid_out_ = false;
};

}  // namespace

std::string backend::render_known_format(const std::string& dot_text, const std::string& format) {
  std::lock_guard<std::mutex> lock(graphviz_mutex);
  gvplugin_library_t* gd = nullptr;
  if (format == "png") {
    std::string why;
    gd = gd_plugin(&why);
    if (!gd) throw Error("render: " + why);
  }
  GraphvizJob job(gd);
  job.parse(dot_text);
  if (format == "dot") return dot_text;
  job.layout();
  // "png:gd": the gd plugin also lists a png device for cairo, which is not loaded.
  return job.render(format == "png" ? "png:gd" : "svg");
}

bool graphviz_available(std::string* why_not) { return true; }

bool png_available(std::string* why_not) {
  std::lock_guard<std::mutex> lock(graphviz_mutex);
  return gd_plugin(why_not) != nullptr;
}

}  // namespace nabla::viz
