#include "spectrum_view.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "analysis_plots.h"
#include "plot_panel.h"
#include "view_tips.h"

namespace fone::gui {

namespace fa = fone::analysis;

namespace {

// A probe holds out a quarter of the numbers: with fewer than 40 (10 held out) it says nothing.
constexpr int kMinProbeNumbers = 40;

// A progress that reports [from, to] of the whole for a stage's 0..1.
fa::Progress stage(const fa::Progress& whole, double from, double to) {
    fa::Progress p;
    p.cancel = whole.cancel;
    if (whole.report)
        p.report = [report = whole.report, from, to](double f) { report(from + (to - from) * f); };
    return p;
}

void check(const fa::Progress& p) {
    if (p.cancel && p.cancel->load()) throw fa::Cancelled();
}

QString period_label(double period) {
    return QString::number(period, 'g', period >= 1e4 ? 6 : 4);
}

}  // namespace

SpectrumResult analyse_spectrum(std::shared_ptr<const Representations> source, const fa::Progress& progress) {
    SpectrumResult r;
    r.source = source;
    const int layers = static_cast<int>(source->layers.size());
    r.layers = fa::layer_spectra(source->layers, {}, stage(progress, 0.0, 0.3));
    const int n = static_cast<int>(source->numbers.size());
    for (std::int64_t t : {2, 5, 10, 100})
        if (n >= std::max<std::int64_t>(kMinProbeNumbers, 2 * t)) r.probe_periods.push_back(t);
    const int total = std::max<int>(1, layers * static_cast<int>(r.probe_periods.size()));
    int done = 0;
    r.probes.resize(static_cast<std::size_t>(layers));
    for (int l = 0; l < layers; ++l)
        for (std::int64_t t : r.probe_periods) {
            check(progress);
            r.probes[static_cast<std::size_t>(l)].push_back(
                fa::probe_residue(source->layers[static_cast<std::size_t>(l)], source->numbers, t));
            ++done;
            if (progress.report) progress.report(0.3 + 0.5 * done / total);
        }
    if (n >= kMinProbeNumbers) {
        const std::vector<int> places = fa::digit_places(source->numbers);
        r.digits = fa::digit_probes(source->layers, source->numbers, places, {}, stage(progress, 0.8, 0.9));
        r.sinusoidal =
            fa::sinusoidal_probes(source->layers, source->numbers, places, {}, stage(progress, 0.9, 1.0));
    }
    return r;
}

std::vector<fa::ProbeResult> probe_bars(const SpectrumResult& r, ProbeKind kind, std::size_t layer) {
    if (kind == ProbeKind::linear)
        return layer < r.probes.size() ? r.probes[layer] : std::vector<fa::ProbeResult>{};
    if (kind == ProbeKind::circular)
        return layer < r.digits.results.size() ? r.digits.results[layer] : std::vector<fa::ProbeResult>{};
    std::vector<fa::ProbeResult> bars;
    if (layer >= r.sinusoidal.size()) return bars;
    const fa::SinusoidalProbe& p = r.sinusoidal[layer];
    for (std::size_t i = 0; i < p.places.size(); ++i) {
        fa::ProbeResult bar;
        bar.period = static_cast<std::int64_t>(std::llround(p.periods[i]));
        bar.accuracy = p.place_accuracy[i];
        bar.chance = p.place_chance[i];
        bar.test_count = p.test_count;
        bars.push_back(bar);
    }
    fa::ProbeResult exact;
    exact.accuracy = p.accuracy;
    exact.chance = p.chance;
    exact.test_count = p.test_count;
    bars.push_back(exact);
    return bars;
}

std::vector<std::string> probe_bar_names(const SpectrumResult& r, ProbeKind kind) {
    std::vector<std::string> names;
    if (kind == ProbeKind::linear) {
        for (std::int64_t t : r.probe_periods)
            names.push_back("x mod " + std::to_string(t));
        return names;
    }
    for (int place : r.digits.places)
        names.push_back(fa::place_name(place));
    if (kind == ProbeKind::sinusoidal) names.push_back("x exactly");
    return names;
}

fa::Spectrum layer_spectrum(const fa::LayerSpectra& layers, int layer, int count) {
    fa::Spectrum s;
    s.count = count;
    s.k = layers.k;
    s.period = layers.period;
    const auto row = layers.magnitude.row(layer);
    for (Eigen::Index i = 0; i < row.size(); ++i)
        s.magnitude.push_back(row(i));
    return s;
}

SpectrumView::SpectrumView(RunCatalog* catalog, QWidget* parent) : RepresentationView(catalog, parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(source_);
    layer_->setToolTip(
        "The layer whose spectrum and probe are drawn: 0 is the input (token embedding + FoNE), "
        "L the output of block L");
    layer_->setMinimumContentsLength(14);
    layer_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    compute_button_->setToolTip(
        "Load the representations and compute the spectra and probes (off the window's "
        "thread)");
    progress_->setTextVisible(true);
    progress_->setMinimumWidth(progress_->fontMetrics().horizontalAdvance("spectra and probes 100%") + 24);
    probe_kind_ = new QComboBox;
    probe_kind_->addItem(QStringLiteral("linear x mod T"));
    probe_kind_->addItem(QStringLiteral("circular per digit"));
    probe_kind_->addItem(QStringLiteral("sinusoidal"));
    probe_kind_->setToolTip(
        "The probe drawn and tabulated per layer: linear (is x mod T a linear function of the "
        "representation), "
        "circular per digit place (Levy & Geva 2024: is the digit at 10^p a point on a base-10 circle), or "
        "sinusoidal (Kadlčík et al. 2025: x decoded from cos/sin of x at the periods 10^(p+1), scored "
        "exactly "
        "and place by place)");
    connect(probe_kind_, &QComboBox::currentIndexChanged, this, [this] { draw(); });
    layout->addLayout(controls_row({{QStringLiteral("Probe"), probe_kind_}}));
    layout->addWidget(build_plots(), 1);
    spikes_ = new QLabel;
    spikes_->setWordWrap(true);
    spikes_->setMinimumWidth(100);
    spikes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(spikes_);
    layout->addWidget(status_label());
    heatmap_panel_->hide();
    probe_table_->hide();
    connect(&watcher_, &QFutureWatcher<SpectrumResult>::finished, this, &SpectrumView::on_analysed);
    request_refresh();
}

// The spectrum and the probe side by side, the layer heatmap under them.
QWidget* SpectrumView::build_plots() {
    spectrum_panel_ = new PlotPanel;
    heatmap_panel_ = new PlotPanel;
    probe_panel_ = new PlotPanel;
    for (PlotPanel* p : {spectrum_panel_, heatmap_panel_, probe_panel_}) {
        p->layout()->setContentsMargins(0, 0, 0, 0);
        p->controls()->addStretch(1);
        p->add_export_button()->setToolTip("Save this plot (PNG, SVG, PDF)");
        p->plot()->setMinimumSize(160, 110);
        make_figure(p, [this] { draw(); });
    }
    // Zoom with the wheel, drag to pan, double-click to fit; the value under the mouse in a tooltip.
    spectrum_panel_->enable_inspection([this](const PlotHit& hit) {
        const fa::Spectrum s = spectrum();
        for (std::size_t i = 0; i < s.k.size(); ++i)
            if (s.k[i] == hit.key)
                return QStringLiteral("k = %1 · period T = %2 · magnitude %3")
                    .arg(s.k[i])
                    .arg(period_label(s.period[i] * result_->source->step))
                    .arg(s.magnitude[i], 0, 'g', 3);
        return QString();
    });
    probe_panel_->enable_inspection([this](const PlotHit& hit) {
        if (!result_) return QString();
        const auto row = probe_bars(*result_, probe_kind(), static_cast<std::size_t>(std::max(layer(), 0)));
        const auto names = probe_bar_names(*result_, probe_kind());
        const std::size_t i = static_cast<std::size_t>(std::lround(hit.key));
        if (i >= row.size() || i >= names.size()) return QString();
        return QStringLiteral("%1: held-out accuracy %2% on %3 numbers; chance %4%")
            .arg(QString::fromStdString(names[i]))
            .arg(100.0 * row[i].accuracy, 0, 'f', 1)
            .arg(row[i].test_count)
            .arg(100.0 * row[i].chance, 0, 'f', 1);
    });
    spectrum_panel_->plot()->setToolTip(tips::kSpectrum);
    heatmap_panel_->plot()->setToolTip(
        "Layer x frequency: the magnitude of every frequency k at every layer, brighter = stronger. A bright "
        "column that runs through all layers is a period the network keeps.");
    probe_panel_->plot()->setToolTip(tips::kProbe);
    probe_table_ = new QTableWidget;
    probe_table_->setToolTip(
        "Held-out accuracy of the chosen probe at every layer (chance in the "
        "tooltip of each cell)");
    probe_table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    probe_table_->verticalHeader()->setDefaultSectionSize(22);
    probe_table_->setMinimumHeight(60);  // scrolls in a short window
    probe_table_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustIgnored);
    probe_box_ = new QWidget;
    auto* probe_layout = new QVBoxLayout(probe_box_);
    probe_layout->setContentsMargins(0, 0, 0, 0);
    probe_layout->addWidget(probe_panel_, 3);
    probe_layout->addWidget(probe_table_, 1);
    auto* top = new QSplitter(Qt::Horizontal);
    top->addWidget(spectrum_panel_);
    top->addWidget(probe_box_);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(top);
    split->addWidget(heatmap_panel_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    return split;
}

SpectrumView::~SpectrumView() {
    stop_background(watcher_);
}

QCustomPlot* SpectrumView::spectrum_plot() const {
    return spectrum_panel_->plot();
}
QCustomPlot* SpectrumView::heatmap_plot() const {
    return heatmap_panel_->plot();
}
QCustomPlot* SpectrumView::probe_plot() const {
    return probe_panel_->plot();
}

void SpectrumView::set_probe_kind(ProbeKind kind) {
    probe_kind_->setCurrentIndex(static_cast<int>(kind));
}

QString SpectrumView::probe_name() const {
    static const char* const kNames[] = {"linear", "circular", "sinusoidal"};
    return QString::fromLatin1(kNames[static_cast<int>(probe_kind())]);
}

void SpectrumView::set_probe_name(const QString& name) {
    const int i = QStringList{"linear", "circular", "sinusoidal"}.indexOf(name);
    if (i >= 0) probe_kind_->setCurrentIndex(i);
}

ProbeKind SpectrumView::probe_kind() const {
    return static_cast<ProbeKind>(std::max(probe_kind_->currentIndex(), 0));
}

void SpectrumView::on_loaded(std::shared_ptr<const Representations> source) {
    if (source->numbers.size() < 2) {
        on_failed("a spectrum needs at least 2 numbers");
        return;
    }
    run_in_background(watcher_, "spectra and probes",
                      [source](const fa::Progress& progress) { return analyse_spectrum(source, progress); });
}

void SpectrumView::on_analysed() {
    SpectrumResult r = watcher_.result();
    set_running(false);
    if (r.cancelled) return;
    if (!r.error.isEmpty()) {
        on_failed(r.error);
        return;
    }
    result_ = std::make_shared<const SpectrumResult>(std::move(r));
    show_info(QString());
    list_layers(*result_->source);
    draw();
    set_busy(false);
    Q_EMIT finished();
}

fa::Spectrum SpectrumView::spectrum() const {
    if (!result_) return {};
    return layer_spectrum(result_->layers,
                          std::clamp(layer(), 0, static_cast<int>(result_->layers.magnitude.rows()) - 1),
                          static_cast<int>(result_->source->numbers.size()));
}

std::vector<fa::Spike> SpectrumView::spikes(int max_count) const {
    if (!result_) return {};
    return fa::top_spikes(spectrum(), max_count, 0.05);
}

QString SpectrumView::spikes_text() const {
    return spikes_->text();
}

void SpectrumView::draw() {
    if (!result_) return;
    const Representations& src = *result_->source;
    const int l = std::clamp(layer(), 0, static_cast<int>(src.layers.size()) - 1);
    const fa::Spectrum s = spectrum();
    const std::string range = src.numbers.front().to_string() + ".." + src.numbers.back().to_string();
    const bool encoder = src.layer_names.size() == 1 && src.layer_names[0] == "FoNE encoder";
    plots::draw_spectrum(
        *spectrum_panel_->plot(), s,
        {.title = "Spectrum of " + src.description.toStdString() +
                  (encoder ? std::string() : ", " + src.layer_names[l].toStdString()) + ", numbers " + range,
         .period_unit = src.step});
    spectrum_panel_->plot()->replot(QCustomPlot::rpQueuedReplot);
    // Spikes as text: what the picture says, in words.
    QStringList parts;
    for (const fa::Spike& spike : fa::top_spikes(s, 6, 0.05))
        parts << QStringLiteral("T = %1 (k = %2, %3)")
                     .arg(period_label(spike.period * src.step))
                     .arg(spike.k)
                     .arg(spike.magnitude, 0, 'g', 3);
    spikes_->setText(QStringLiteral("%1 numbers × %2 dimensions. Largest spikes: %3")
                         .arg(src.numbers.size())
                         .arg(src.layers[static_cast<std::size_t>(l)].cols())
                         .arg(parts.isEmpty() ? QStringLiteral("none (a flat spectrum)") : parts.join(", ")));
    // The heatmap, when there are layers to compare.
    heatmap_panel_->setVisible(src.layers.size() > 1);
    if (src.layers.size() > 1) {
        std::vector<std::string> names;
        for (const QString& n : src.layer_names)
            names.push_back(n.toStdString());
        plots::draw_layer_heatmap(*heatmap_panel_->plot(), result_->layers, names,
                                  "Spectrum per layer: " + src.description.toStdString(), src.step);
        heatmap_panel_->plot()->replot(QCustomPlot::rpQueuedReplot);
    }
    // The chosen probe at the chosen layer, and every layer's in the table.
    const std::vector<std::string> names = probe_bar_names(*result_, probe_kind());
    static const char* const kTitles[] = {"Linear probe of x mod T", "Circular probe per digit place",
                                          "Sinusoidal probe of x, scored per place"};
    if (!names.empty()) {
        plots::draw_probe(
            *probe_panel_->plot(), probe_bars(*result_, probe_kind(), static_cast<std::size_t>(l)),
            kTitles[static_cast<int>(probe_kind())] +
                (src.layers.size() > 1 ? ", " + src.layer_names[l].toStdString() : std::string()),
            names);
        probe_panel_->plot()->replot(QCustomPlot::rpQueuedReplot);
    }
    probe_box_->setVisible(!names.empty());
    if (names.empty()) {
        show_info(QStringLiteral("No probe: it needs at least %1 numbers (a quarter is held out). ")
                      .arg(kMinProbeNumbers) +
                  source_->limit_note());
    }
    draw_probe_table(src, l);
}

// Every layer's probe accuracies, the chosen layer in bold (shown when there are layers to compare).
void SpectrumView::draw_probe_table(const Representations& src, int l) {
    const std::vector<std::string> names = probe_bar_names(*result_, probe_kind());
    probe_table_->setVisible(src.layers.size() > 1 && !names.empty());
    probe_table_->clear();
    probe_table_->setRowCount(static_cast<int>(src.layers.size()));
    probe_table_->setColumnCount(static_cast<int>(names.size()));
    QStringList headers, rows;
    for (const std::string& n : names)
        headers << QString::fromStdString(n);
    for (const QString& n : src.layer_names)
        rows << n;
    probe_table_->setHorizontalHeaderLabels(headers);
    probe_table_->setVerticalHeaderLabels(rows);
    for (int r = 0; r < static_cast<int>(src.layers.size()); ++r) {
        const std::vector<fa::ProbeResult> bars =
            probe_bars(*result_, probe_kind(), static_cast<std::size_t>(r));
        for (std::size_t c = 0; c < bars.size() && c < names.size(); ++c) {
            const fa::ProbeResult& p = bars[c];
            auto* item = new QTableWidgetItem(QString::number(100.0 * p.accuracy, 'f', 1) + "%");
            item->setToolTip(QStringLiteral("held-out accuracy %1% on %2 numbers; chance %3%")
                                 .arg(100.0 * p.accuracy, 0, 'f', 1)
                                 .arg(p.test_count)
                                 .arg(100.0 * p.chance, 0, 'f', 1));
            item->setBackground(QColor::fromHsvF(0.33, 0.6 * std::clamp(p.accuracy, 0.0, 1.0), 0.95));
            item->setForeground(Qt::black);
            if (r == l) {
                QFont f;
                f.setBold(true);
                item->setFont(f);
            }
            probe_table_->setItem(r, static_cast<int>(c), item);
        }
    }
    // Columns wide enough for "100.0%" (the table scrolls sideways when the box is narrower); as high as its
    // rows at most, and less (scrolling) in a short window.
    probe_table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    probe_table_->horizontalHeader()->setStretchLastSection(true);
    probe_table_->setMaximumHeight(probe_table_->horizontalHeader()->sizeHint().height() +
                                   probe_table_->rowCount() *
                                       probe_table_->verticalHeader()->defaultSectionSize() +
                                   4 + probe_table_->horizontalScrollBar()->sizeHint().height());
}

}  // namespace fone::gui
