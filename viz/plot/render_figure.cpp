// render_figure and save_figure (plot_backend.hpp): the format's bytes of a figure.
//
// Note [Image grids are pixels]
// An image grid is written as its pixels, as torchvision's save_image writes them: the
// PNG holds the grid exactly (one pixel a pixel), and the SVG embeds that PNG, as
// matplotlib's SVG does for imshow. PLplot is not used for it: its plimage maps values
// through a one-dimensional colour map, so it cannot draw RGB, and drawn as one filled
// polygon a pixel, a grid of 64 28x28 images would be megabytes of SVG.
#include "interp/builtins/png.hpp"
#include "tensor/atomic_file.hpp"
#include "tensor/error.hpp"
#include "viz/plot/plot_backend.hpp"

namespace nabla::viz::plot {

namespace {

std::string base64(const std::string& bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 | uint8_t(bytes[i + 2]);
    for (int s : {18, 12, 6, 0}) out += digits[(v >> s) & 63];
  }
  if (size_t rest = bytes.size() - i) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 | (rest == 2 ? uint32_t(uint8_t(bytes[i + 1])) << 8 : 0);
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += rest == 2 ? digits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string grid_png(const ImageGrid& g) { return interp::encode_png(g.pixels, g.width, g.height, g.channels); }

// The grid's PNG in an SVG of the grid's size; the title, if any, as the SVG's <title>.
std::string grid_svg(const Figure& f) {
  const ImageGrid& g = *f.image;
  std::string w = std::to_string(g.width), h = std::to_string(g.height);
  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
                    "version=\"1.1\" width=\"" + w + "\" height=\"" + h + "\" viewBox=\"0 0 " + w + " " + h + "\">\n";
  if (!f.title.empty()) {
    std::string escaped;
    for (char c : f.title) escaped += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
    svg += "<title>" + escaped + "</title>\n";
  }
  svg += "<image width=\"" + w + "\" height=\"" + h + "\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64," +
         base64(grid_png(g)) + "\"/>\n</svg>\n";
  return svg;
}

}  // namespace

std::string render_figure(const Figure& figure, const std::string& format) {
  if (figure.image) return format == "png" ? grid_png(*figure.image) : grid_svg(figure);
  std::string why;
  if (!backend::available(&why)) throw Error("plot: cannot draw a " + format + ": " + why);
  if (format == "svg") return backend::draw_svg(figure);
  return interp::encode_png(backend::draw_rgb(figure), figure.width, figure.height, 3);
}

void save_figure(const Figure& figure, const std::string& path, const std::string& what) {
  std::string bytes = render_figure(figure, format_of_path(path, what));
  write_file_atomically(path, bytes, what);
}

}  // namespace nabla::viz::plot
