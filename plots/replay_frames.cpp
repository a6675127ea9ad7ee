// Replay frames (replay_frames.h; docs/analysis.md "Replay").
#include "replay_frames.h"

#include <qcustomplot.h>
#include <QPainter>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "analysis_plots.h"
#include "geometry_plots.h"

namespace fone::plots {

namespace fa = fone::analysis;

namespace {

// The panels' shares of the width: curves, spectrum, PCA, clocks (three or more circles), probes.
constexpr double kShares[] = {0.16, 0.2, 0.2, 0.26, 0.18};
constexpr int kTitleBand = 34;
constexpr int kPanels = 5;

// The panels of each line, for a frame of 1, 2 or 5 lines a run.
std::vector<std::vector<int>> panel_lines(int lines) {
    if (lines == 1) return {{0, 1, 2, 3, 4}};
    if (lines == 2) return {{0, 1, 2}, {3, 4}};
    return {{0}, {1}, {2}, {3}, {4}};
}

// Where panel `column` goes in a frame `width` wide: its line and its x range, the line's shares scaled to
// the whole width.
struct PanelBox {
    int line, x, w;
};
PanelBox panel_box(int column, int width, int lines) {
    const auto layout = panel_lines(lines);
    for (std::size_t l = 0; l < layout.size(); ++l) {
        double total = 0, before = 0;
        bool here = false;
        for (const int c : layout[l]) {
            if (c == column) here = true;
            if (!here) before += kShares[c];
            total += kShares[c];
        }
        if (!here) continue;
        const int x = static_cast<int>(before / total * width);
        const int right = static_cast<int>((before + kShares[column]) / total * width);
        return {static_cast<int>(l), x, right - x};
    }
    throw std::logic_error("replay: no panel " + std::to_string(column));
}

// Exact match and digit accuracy over the evaluated steps, the replayed step as a vertical line.
void draw_curves(QCustomPlot& plot, const fa::ReplayRun& run, std::int64_t step) {
    LineSeries exact{"exact match", {}, {}, {}, {}}, digits{"digit accuracy", {}, {}, {}, {}};
    for (std::size_t i = 0; i < run.eval_steps.size(); ++i) {
        const double x = static_cast<double>(run.eval_steps[i]);
        if (run.exact_match[i] >= 0) exact.x.push_back(x), exact.y.push_back(run.exact_match[i]);
        if (run.digit_accuracy[i] >= 0) digits.x.push_back(x), digits.y.push_back(run.digit_accuracy[i]);
    }
    draw_lines(plot, {exact, digits},
               {.title = run.name + (run.method.empty() ? "" : " (" + run.method + ")"),
                .x_label = "training step",
                .y_label = "test"});
    plot.xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    for (int g = 0; g < plot.graphCount(); ++g)
        plot.graph(g)->setScatterStyle(QCPScatterStyle::ssNone);
    auto* marker = new QCPItemStraightLine(&plot);
    marker->point1->setCoords(static_cast<double>(step), 0);
    marker->point2->setCoords(static_cast<double>(step), 1);
    marker->setPen(QPen(QColor(200, 40, 40), 2, Qt::DashLine));
}

fa::Spectrum last_layer_spectrum(const fa::ReplayState& s) {
    fa::Spectrum out;
    out.count = static_cast<int>(s.numbers.size());
    out.k = s.spectra.k;
    out.period = s.spectra.period;
    const auto row = s.spectra.magnitude.row(s.spectra.magnitude.rows() - 1);
    out.magnitude.assign(row.data(), row.data() + row.size());
    return out;
}

// Every probe per layer: linear x mod 10, circular per digit place, sinusoidal (exact value).
void draw_probes(QCustomPlot& plot, const fa::ReplayState& s) {
    std::vector<LineSeries> lines{per_layer_series("linear x mod 10", s.linear_mod10)};
    for (std::size_t p = 0; p < s.digits.places.size(); ++p) {
        std::vector<double> accuracy;
        for (const auto& row : s.digits.results)
            accuracy.push_back(row[p].accuracy);
        lines.push_back(per_layer_series("circular " + fa::place_name(s.digits.places[p]), accuracy));
    }
    lines.push_back(per_layer_series("sinusoidal x", s.sinusoidal));
    draw_lines(
        plot, lines,
        {.title = "Probes per layer (held-out accuracy)", .x_label = "layer (0: input)", .y_label = ""});
}

// One run's row of panels at `step`.
void draw_row(QPainter& painter, const fa::ReplayRun& run, std::int64_t step, ReplayCache& cache, int top,
              const ReplayFrameStyle& style) {
    auto panel = [&](int column, const std::function<void(QCustomPlot&)>& draw) {
        const PanelBox box = panel_box(column, style.width, style.lines);
        painter.drawPixmap(box.x, top + box.line * style.row_height,
                           render_plot(box.w, style.row_height, draw));
    };
    panel(0, [&](QCustomPlot& p) { draw_curves(p, run, step); });
    const int index = fa::snapshot_at(run, step);
    if (index < 0) {
        panel(1, [&](QCustomPlot& p) {
            draw_message(p, "no snapshot yet: the first is at step " + std::to_string(run.snapshots[0].step));
        });
        return;
    }
    const fa::ReplayState& s = cache.state(run, index);
    const std::string at = "step " + std::to_string(s.step) + ", " + s.layer_names.back();
    panel(1, [&](QCustomPlot& p) {
        draw_spectrum(p, last_layer_spectrum(s), {.title = "Spectrum, " + at, .labelled_spikes = 4});
    });
    panel(2, [&](QCustomPlot& p) {
        if (s.pca.projection.cols() < 2) return draw_message(p, "PCA needs 2 dimensions");
        draw_pca(p, s.pca, fa::residue_classes(s.numbers, 10), 10, "x mod 10", "PCA by x mod 10, " + at);
        // The legend's cells are narrow here: "x mod 10 = 3" becomes "3" (the title names the colouring).
        for (int g = 0; g < p.graphCount(); ++g) {
            const QString name = p.graph(g)->name();
            p.graph(g)->setName(name.mid(name.lastIndexOf(QStringLiteral("= ")) + 2));
        }
    });
    if (s.digits.places.empty()) {
        const std::string why = "no probes: " + std::to_string(s.numbers.size()) +
                                " numbers in the snapshot (" + std::to_string(fa::kMinReplayProbeNumbers) +
                                " needed)";
        panel(3, [&](QCustomPlot& p) { draw_message(p, why); });
        return;
    }
    panel(3, [&](QCustomPlot& p) {
        draw_clocks(p, s.digits, s.digits.results.size() - 1, s.numbers, "Digit clocks, " + at);
    });
    panel(4, [&](QCustomPlot& p) { draw_probes(p, s); });
}

}  // namespace

ReplayFrameStyle fitted_replay_style(int width) {
    ReplayFrameStyle style;
    style.width = width;
    for (const int lines : {1, 2, 5}) {
        style.lines = lines;
        // Wrapped lines are shorter: the frame then scrolls, and each line keeps a readable plot.
        style.row_height = lines == 1 ? 360 : 320;
        if (narrowest_replay_panel(style) >= kMinReplayPanelWidth) break;
    }
    return style;
}

int narrowest_replay_panel(const ReplayFrameStyle& style) {
    int narrowest = style.width;
    for (int c = 0; c < kPanels; ++c)
        narrowest = std::min(narrowest, panel_box(c, style.width, style.lines).w);
    return narrowest;
}

const fa::ReplayState& ReplayCache::state(const fa::ReplayRun& run, int index) {
    const auto key = std::make_pair(run.dir, index);
    auto it = states_.find(key);
    if (it == states_.end())
        it = states_
                 .emplace(key, fa::analyse_snapshot(
                                   read_snapshot(run.snapshots[static_cast<std::size_t>(index)].path)))
                 .first;
    return it->second;
}

QImage draw_replay_frame(const std::vector<fa::ReplayRun>& runs, std::int64_t step, ReplayCache& cache,
                         const ReplayFrameStyle& style) {
    ensure_application();
    const int run_height = style.row_height * static_cast<int>(panel_lines(style.lines).size());
    QImage image(style.width, kTitleBand + run_height * static_cast<int>(runs.size()), QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    QFont title(QStringLiteral("DejaVu Sans"), 14, QFont::Bold);
    painter.setFont(title);
    painter.setPen(Qt::black);
    painter.drawText(
        QRect(10, 0, style.width - 20, kTitleBand), Qt::AlignVCenter | Qt::AlignLeft,
        QStringLiteral("Replay: training step %1 (each run at its nearest snapshot at or before it)")
            .arg(step));
    for (std::size_t r = 0; r < runs.size(); ++r)
        draw_row(painter, runs[r], step, cache, kTitleBand + static_cast<int>(r) * run_height, style);
    return image;
}

std::vector<std::string> write_replay_frames(const std::vector<fa::ReplayRun>& runs, const std::string& dir,
                                             ReplayCache& cache, const ReplayFrameStyle& style) {
    std::filesystem::create_directories(dir);
    std::vector<std::string> paths;
    for (const std::int64_t step : fa::replay_steps(runs)) {
        char name[32];
        std::snprintf(name, sizeof name, "frame-%08lld.png", static_cast<long long>(step));
        const std::string path = (std::filesystem::path(dir) / name).string();
        save_png(path, draw_replay_frame(runs, step, cache, style));
        paths.push_back(path);
    }
    return paths;
}

}  // namespace fone::plots
