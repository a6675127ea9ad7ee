// Speed of the analyses (one thread: Eigen is built without OpenMP here). The budgets: a spectrum
// of 1,000 numbers x 512 dimensions well under 1 s (off the GUI thread), the unit circles redrawn in under
// 16 ms while a slider moves (this measures the geometry and, with QCustomPlot, drawing + rendering; with
// the workbench views, one step of the circles view's slider and the spectrum view's whole computation).
// Prints the median of several repeats per figure.
//   build/bin/bench_analysis [repeats]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "fone/analysis/analysis.h"

#ifdef FONE_WITH_PLOTS
#include <qcustomplot.h>
#include <QApplication>

#include "analysis_plots.h"
#endif
#ifdef FONE_WITH_ANALYSIS_VIEWS
#include <QEventLoop>
#include <QSlider>
#include <QTimer>

#include "circles_view.h"
#include "spectrum_view.h"
#endif

namespace {

namespace fa = fone::analysis;
using Clock = std::chrono::steady_clock;

double median_seconds(int repeats, const std::function<void()>& work) {
    std::vector<double> times;
    for (int r = 0; r < repeats; ++r) {
        const auto t0 = Clock::now();
        work();
        times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

Eigen::MatrixXd gaussian(int rows, int cols) {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> normal;
    Eigen::MatrixXd m(rows, cols);
    for (Eigen::Index c = 0; c < m.cols(); ++c)
        for (Eigen::Index r = 0; r < m.rows(); ++r)
            m(r, c) = normal(rng);
    return m;
}

void line(const char* what, double seconds, const char* budget) {
    std::printf("%-52s %10.3f ms   %s\n", what, seconds * 1e3, budget);
}

}  // namespace

int main(int argc, char** argv) {
    const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
    double sink = 0.0;
    const Eigen::MatrixXd rows = gaussian(1000, 512);
    line("spectrum 1,000 numbers x 512 dims",
         median_seconds(repeats, [&] { sink += fa::fourier_spectrum(rows).magnitude[1]; }),
         "(budget: < 1 s)");
    const Eigen::MatrixXd prime = gaussian(997, 512);
    line("spectrum 997 (prime) numbers x 512 dims",
         median_seconds(repeats, [&] { sink += fa::fourier_spectrum(prime).magnitude[1]; }),
         "(Bluestein chirp-z)");
    const std::vector<Eigen::MatrixXd> layers(12, rows);
    line("layer heatmap 12 layers x 1,000 x 512",
         median_seconds(std::max(1, repeats / 3), [&] { sink += fa::layer_spectra(layers).magnitude(0, 1); }),
         "");
    line("PCA 1,000 x 512 (3 components)",
         median_seconds(repeats, [&] { sink += fa::pca(rows, 3).variance[0]; }), "");
    const Eigen::MatrixXd wide = gaussian(200, 4096);
    line("PCA 200 x 4,096 (3 components, Gram matrix)",
         median_seconds(repeats, [&] { sink += fa::pca(wide, 3).variance[0]; }), "");
    const auto numbers = fa::number_range(fone::Decimal(), fone::Decimal::from_int(1), 1000);
    line("probe x mod 10, 1,000 x 512 (circular)",
         median_seconds(repeats, [&] { sink += fa::probe_residue(rows, numbers, 10).accuracy; }), "");
    line("probe x mod 100, 1,000 x 512 (one-hot)",
         median_seconds(
             repeats,
             [&] {
                 sink += fa::probe_residue(rows, numbers, 100, {.code = fa::ProbeCode::one_hot}).accuracy;
             }),
         "");

    fone::FoneSpec spec;  // m = 7, n = 3: ten circles
    const fone::Decimal x = fone::Decimal::parse("1234567.891");
    constexpr int kCalls = 2000;
    line("unit circles of 1234567.891 (10 periods), per call",
         median_seconds(repeats,
                        [&] {
                            for (int i = 0; i < kCalls; ++i)
                                sink += fa::unit_circles(x, spec).circles[3].turns;
                        }) /
             kCalls,
         "(budget for the redraw: < 16 ms)");
    fone::FoneSpec long_spec;
    long_spec.int_digits = 60;
    long_spec.frac_digits = 0;
    const fone::Decimal big =
        fone::Decimal::parse("123456789012345678901234567890123456789012345678901234567890");
    line("unit circles of a 60-digit number (60 periods), per call",
         median_seconds(repeats,
                        [&] {
                            for (int i = 0; i < kCalls / 10; ++i)
                                sink += fa::unit_circles(big, long_spec).circles[3].turns;
                        }) /
             (kCalls / 10),
         "");
#ifdef FONE_WITH_PLOTS
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCustomPlot plot;
    const auto circles = fa::unit_circles(x, spec);
    const auto [w, h] = fone::plots::circles_size(circles);
    plot.resize(w, h);
    line("draw + render the 10 circles (QCustomPlot, offscreen)",
         median_seconds(repeats,
                        [&] {
                            fone::plots::draw_circles(plot, fa::unit_circles(x, spec));
                            sink += plot.toPixmap(w, h).width();
                        }),
         "(budget for the redraw: < 16 ms)");
#endif
#ifdef FONE_WITH_ANALYSIS_VIEWS
    {
        // The circles view as the user drives it. A slider step parses the number, computes its circles,
        // moves the hands and captions (a layer of their own) and repaints the plot; changing the periods
        // (or a resize) draws everything again.
        fone::gui::CirclesView view;
        view.resize(1300, 800);
        view.show();
        view.set_number("1234.567");  // 7 circles, the slider in steps of 0.001
        view.redraw_now();
        QCoreApplication::processEvents();
        int value = 1234567;
        auto step = [&] {
            view.slider()->setValue(++value);
            QCoreApplication::processEvents();  // the repaint
            sink += view.circles()->circles[0].turns;
        };
        line("circles view: one slider step (7 circles, 1300x800)", median_seconds(repeats * 20, step),
             "(budget: < 16 ms)");
        line("circles view: everything redrawn (7 circles)",
             median_seconds(repeats * 5, [&] { view.redraw_now(); }), "(a resize, other periods)");
        view.set_slots(7, 3);  // ten circles
        view.redraw_now();
        QCoreApplication::processEvents();
        line("circles view: one slider step (10 circles)", median_seconds(repeats * 20, step),
             "(budget: < 16 ms)");
        line("circles view: everything redrawn (10 circles)",
             median_seconds(repeats * 5, [&] { view.redraw_now(); }), "");
        // The spectrum view's whole job, off the GUI thread: encode 0..999, spectrum, 4 probes.
        fone::gui::SpectrumView spectrum(nullptr);
        spectrum.set_numbers(1000);
        line("spectrum view: encoder 0..999, spectrum + 4 probes (worker)",
             median_seconds(repeats,
                            [&] {
                                QEventLoop loop;
                                QObject::connect(&spectrum, &fone::gui::SpectrumView::finished, &loop,
                                                 &QEventLoop::quit);
                                spectrum.set_numbers(spectrum.numbers() == 1000 ? 1001 : 1000);  // no cache
                                spectrum.compute();
                                loop.exec();
                                sink += static_cast<double>(spectrum.spikes(3).size());
                            }),
             "(wall time, the window stays free)");
    }
#endif
    std::printf("(checksum %.3f)\n", sink);
    return 0;
}
