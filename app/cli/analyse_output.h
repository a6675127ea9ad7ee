// What the `fone analyse` commands share for their files: the output folder, numbers as text, and PNGs
// drawn only in builds with the QCustomPlot drawings (FONE_WITH_PLOTS). Header-only: maybe_png is a template
// so that, without plots, the drawing lambda is never instantiated (and never linked).
#pragma once

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "analysis_plots.h"

namespace fone::cli {

// DIR/NAME, DIR created when missing.
inline std::string out_path(const std::string& dir, const std::string& name) {
    std::filesystem::create_directories(dir);
    return (std::filesystem::path(dir) / name).string();
}

// A double as CSV text: 12 significant digits, "inf" for infinity.
inline std::string number_text(double v) {
    if (std::isinf(v)) return "inf";
    std::ostringstream s;
    s.precision(12);
    s << v;
    return s.str();
}

// Draws into a PNG when this build has QCustomPlot; returns the path, or null when there are no plots.
template <class Draw>
nlohmann::json maybe_png(const std::string& path, int width, int height, Draw&& draw, bool wanted) {
#ifdef FONE_WITH_PLOTS
    if (!wanted) return nullptr;
    plots::write_png(path, width, height, std::forward<Draw>(draw));
    return path;
#else
    (void)path, (void)width, (void)height, (void)draw, (void)wanted;
    return nullptr;
#endif
}

}  // namespace fone::cli
