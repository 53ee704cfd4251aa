// display(x) and what a notebook shows of a value (Note [Display] in display.hpp).
// The table at the end is this family's (Note [Builtin tables]).
#include <unistd.h>

#include <atomic>

#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/display.hpp"

namespace nabla::interp {

namespace {

// Whether v's type has the method `name`: a DSL model's method, a native object's
// method or attribute, a native module's function.
bool has_method(const Value& v, const std::string& name) {
  switch (v.tag) {
    case Tag::Instance:
      return v.as<InstanceObj>()->cls->info->methods.count(name) > 0;
    case Tag::Object: {
      auto* o = v.as<ObjectObj>();
      return o->methods.count(name) > 0 || o->find(name) != nullptr;
    }
    case Tag::Module:
      return v.as<Module>()->get(name) != nullptr;
    default:
      return false;
  }
}

// The str that v.method() returns; an error when it returns anything else.
std::string call_repr_method(Evaluator& ev, const Value& v, const std::string& method) {
  CallArgs none;
  Value r = ev.call_method(v, method, none);
  if (r.tag != Tag::Str) fail(std::string(type_name(v)) + "." + method + "() must return a str, got " + type_name(r));
  return r.as<StrObj>()->s;
}

// display(x)'s forms of v: its text form, its images, and an image tensor's PNG.
MimeBundle display_bundle(Evaluator& ev, const Value& v) {
  MimeBundle bundle = repr_images(ev, v);
  bundle["text/plain"] = repr(v);
  if (v.tag == Tag::Tensor && is_image_tensor(v.t) && v.t.numel() > 0) bundle["image/png"] = image_tensor_png(v.t);
  return bundle;
}

// display(*values): each value as its own output in a notebook; on a terminal, its
// text form, as the REPL echoes it.
Value display_builtin(Evaluator& ev, CallArgs& a) {
  if (!a.kw.empty()) fail_unexpected_keyword("display", a.kw.front().first, {});
  for (const Value& v : a.pos) {
    if (ev.display)
      ev.display(DisplayData{display_bundle(ev, v), "", false});
    else
      ev.output(repr(v) + "\n");
  }
  return Value();
}

// Line of a progress bar's redraw: without the "\r" it starts with and the padding
// that wipes a longer line on a terminal.
std::string bar_line(const std::string& s) {
  size_t a = s.find_first_not_of("\r\n"), b = s.find_last_not_of(" \r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

}  // namespace

MimeBundle repr_images(Evaluator& ev, const Value& v) {
  MimeBundle images;
  if (has_method(v, "_repr_svg_")) images["image/svg+xml"] = call_repr_method(ev, v, "_repr_svg_");
  if (has_method(v, "_repr_png_")) images["image/png"] = call_repr_method(ev, v, "_repr_png_");
  return images;
}

void require_notebook(Evaluator& ev, const std::string& what) {
  if (!ev.display) fail(what + ": no notebook to show the drawing in; give a path (.svg, .png or .dot)");
}

void display_svg(Evaluator& ev, const std::string& svg, const std::string& what) {
  require_notebook(ev, what);
  ev.display(DisplayData{{{"text/plain", "<drawing>"}, {"image/svg+xml", svg}}, "", false});
}

std::function<void(const std::string&)> progress_display(Evaluator& ev) {
  // Unique in the notebook, across restarts of the kernel too: an update reaches
  // every output with its display_id, old ones included.
  static std::atomic<int> bars{0};
  std::string id = "nabla-progress-" + std::to_string(getpid()) + "-" + std::to_string(++bars);
  auto shown = std::make_shared<bool>(false);
  Evaluator* evp = &ev;
  return [evp, id, shown](const std::string& s) {
    std::string line = bar_line(s);
    if (line.empty() || !evp->display) return;
    evp->display(DisplayData{{{"text/plain", line}}, id, *shown});
    *shown = true;
  };
}

namespace {

const BuiltinEntry kDisplayBuiltins[] = {
    {"display", display_builtin, "display(*values)",
     "Shows each value in a notebook: its text, its _repr_svg_() / _repr_png_() images, an image tensor ([H, W] or "
     "[C, H, W], C 1 or 3) as a PNG; on a terminal prints its text form. Example: display(rand(28, 28))"},
};

}  // namespace

const BuiltinLibrary kDisplayLibrary = {"display", nullptr, kDisplayBuiltins, nullptr};

}  // namespace nabla::interp
