// Drawing the analyses of fone/analysis.h into a QCustomPlot, and rendering a plot offscreen to PNG.
// Widget-agnostic on purpose: `fone analyse` draws into an offscreen plot and saves it; the workbench
// views draw into the plot they show. Each draw_* clears the plot first and sets titles, axis labels and
// legends, so a picture reads on its own: titles and footers fit the plot's width (two lines, smaller type,
// or elided), legends sit in a row of their own, never over the data, and circles are laid out for the
// plot's size in pixels so that their texts never overlap. Only a forward declaration of QCustomPlot here:
// callers that only render PNGs (the CLI) need no Qt header.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "fone/analysis/analysis.h"

class QCustomPlot;
class QCPCurve;
class QCPItemLine;
class QCPItemText;
class QCPLayer;
class QCPLayerable;
class QImage;
class QPixmap;

namespace fone::plots {

// The page a plot is drawn on, kept with the plot: white (exports, `fone analyse`, the light theme) or
// dark (the workbench's dark theme, on screen only), and a scale for every text (presenter mode). The next
// draw_* on the plot uses it.
struct Paper {
    bool dark = false;
    double text_scale = 1.0;
};
void set_paper(QCustomPlot& plot, const Paper& paper);
Paper paper_of(const QCustomPlot& plot);

// A digit's place as people say it: "units", "tens", "thousands", "tenths", "hundred-thousandths"; beyond
// the millions and millionths (and in other bases) the power: "10⁹s", "7²s".
std::string place_name(int position, int base = 10);

// Magnitude against frequency k as impulses, the largest spikes labelled with their period "T = N/k" (labels
// that would overlap are stacked).
// `period_unit` multiplies N/k (the spacing between the numbers, 1 for 0, 1, 2, ...).
struct SpectrumStyle {
    std::string title = "Fourier spectrum along the number axis";
    double period_unit = 1.0;
    int labelled_spikes = 6;  // at most, and only those above 5% of the largest
    bool log_k = true;  // logarithmic k axis (k = 0, the mean, is then left out): periods 10^i equally spaced
};
void draw_spectrum(QCustomPlot& plot, const analysis::Spectrum& spectrum, const SpectrumStyle& style = {});

// Layer x frequency heatmap (QCPColorMap with a colour scale); rows named by `layer_names` when given.
void draw_layer_heatmap(QCustomPlot& plot, const analysis::LayerSpectra& spectra,
                        const std::vector<std::string>& layer_names = {}, const std::string& title = {},
                        double period_unit = 1.0);

// PC1 against PC2, one colour per class (a digit or a residue); `class_name` labels the legend, e.g.
// "units digit" or "x mod 10". Up to 10 classes get a legend, more get a colour scale.
void draw_pca(QCustomPlot& plot, const analysis::Pca& pca, const std::vector<int>& classes, int class_count,
              const std::string& class_name, const std::string& title = {});

// One circle per period with the ten (base) digit markers φ(j, base), the number's point and a
// caption with the residue and the digit; each circle named by the place of its digit ("tens") over its
// period ("T = 100"); `footer` (e.g. the digits read back) under the circles. A negative number is drawn as
// FoNE encodes it, every sine negated: the hands turn clockwise, and so do the digit marks, so that each
// hand still points just past the mark of its digit. circles_size() is a pixel size that keeps circles
// round.
//
// For a slider: given `handles`, the parts that follow the number (the hands, the carried digit's marker
// and label, the captions) go on a buffered layer of their own and are remembered, so that
// update_circles() can move them to another number with the same periods and base; the caller then
// repaints only that layer (handles.layer->replot()), which costs a fraction of a whole replot. The title
// then should not name the number. update_circles() returns false (and changes nothing) when the periods
// or the base differ: draw again.
struct CircleHandles {
    int base = 0;
    QCPLayer* layer = nullptr;
    std::vector<QCPItemLine*> hands;  // in the readings' order: smallest period first
    std::vector<QCPItemText*> residues, digits, carried_labels;
    std::vector<QCPCurve*> carried;
    std::vector<std::pair<double, double>> centres;
    std::vector<std::string> periods;
    bool mirrored = false;   // drawn for a negative number
    int caption_pixels = 0;  // captions are elided to this width
    QCPLayerable* footer = nullptr;
};
void draw_circles(QCustomPlot& plot, const analysis::UnitCircles& circles, const std::string& title = {},
                  CircleHandles* handles = nullptr, const std::string& footer = {});
bool update_circles(CircleHandles& handles, const analysis::UnitCircles& circles,
                    const std::string& footer = {});
std::pair<int, int> circles_size(const analysis::UnitCircles& circles);

// A hidden state's pairs on the same circles: the normalised pair as the hand, its length, the predicted
// digit's marker (green when right, red when wrong), the true digit ringed, and the ten probabilities as bars
// under each circle (1.3 radii high for p = 1; left out of a plot too short for them, rather than shrinking
// the circles); `footer` (the answer) under them. Each cell is at least as wide as its captions, so that
// neighbours' texts never overlap. hidden_circles_size() keeps circles round.
void draw_hidden_circles(QCustomPlot& plot, const analysis::HiddenCircles& circles,
                         const std::string& title = {}, const std::string& footer = {});
std::pair<int, int> hidden_circles_size(const analysis::HiddenCircles& circles);

// Held-out accuracy of the probe per period next to chance; the bars are named "x mod T", or by `labels`
// when given (the circular probes' digit places).
void draw_probe(QCustomPlot& plot, const std::vector<analysis::ProbeResult>& results,
                const std::string& title = {}, const std::vector<std::string>& labels = {});

// Results charts (`fone reproduce`): one line per series over x (log scale: log2 for data sizes, log10 for
// parameter counts), markers at the points, the spread over seeds as error bars when low/high are given.
struct LineSeries {
    std::string name;
    std::vector<double> x, y, low, high;  // low/high empty: no error bars
};
struct LinesStyle {
    std::string title, x_label, y_label;
    int log_base = 0;  // 0: linear x; 2 or 10: logarithmic x with ticks at the data's x values
    double y_min = 0.0, y_max = 1.0;
    bool percent = true;  // y ticks as percentages
};
void draw_lines(QCustomPlot& plot, const std::vector<LineSeries>& series, const LinesStyle& style);
// A quantity per layer (values[l] at layer l) as one line over the layers.
LineSeries per_layer_series(const std::string& name, const std::vector<double>& values);

// Bars, one per label, with the value printed on top (a share as "3.2%", or "0.04%" when it is small but
// not zero).
void draw_bars(QCustomPlot& plot, const std::vector<std::string>& labels, const std::vector<double>& values,
               const LinesStyle& style);

// A line under whatever was drawn last (the answer of a prediction drawn as bars), fitted to the width.
void add_footer(QCustomPlot& plot, const std::string& text);
// An empty page with one message in the middle (a picture that is gone: a failed prediction).
void draw_message(QCustomPlot& plot, const std::string& message);

// Creates a QApplication when there is none (with QT_QPA_PLATFORM=offscreen when it is unset and there is
// no display), draws into a fresh width x height plot and writes a PNG atomically (temporary file, then
// rename). Throws std::runtime_error naming the path when it cannot be written.
void write_png(const std::string& path, int width, int height, const std::function<void(QCustomPlot&)>& draw);
// An image as a PNG file, through the one atomic writer (fone/io/json_files.h: a symbolic link or special
// file at path is refused, never written through; QSaveFile would follow the link).
void save_png(const std::string& path, const QImage& image);
// The same drawing as a pixmap (for frames put together from several plots); creates the QApplication too.
QPixmap render_plot(int width, int height, const std::function<void(QCustomPlot&)>& draw);
void ensure_application();

}  // namespace fone::plots
