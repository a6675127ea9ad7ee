#include "representation_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTimer>
#include <algorithm>

namespace fone::gui {

RepresentationView::RepresentationView(RunCatalog* catalog, QWidget* parent) : AnalysisView(parent) {
    source_ = new SourceBox(catalog);
    layer_ = new QComboBox;
    compute_button_ = new QPushButton("Compute");
    cancel_button_ = new QPushButton("Cancel");
    cancel_button_->setEnabled(false);
    progress_ = new QProgressBar;
    progress_->setRange(0, 1000);
    loader_ = new RepresentationLoader(this);
    // Settings typed in a row ask for one computation, once the typing pauses.
    debounce_ = new QTimer(this);
    debounce_->setSingleShot(true);
    debounce_->setInterval(600);
    connect(debounce_, &QTimer::timeout, this, [this] { request_refresh(); });
    connect(source_, &SourceBox::sourceChanged, this, [this] { wanted_layer_ = -1; });
    connect(source_, &SourceBox::changed, debounce_, qOverload<>(&QTimer::start));
    connect(loader_, &RepresentationLoader::loaded, this, [this](auto source) { on_loaded(source); });
    connect(loader_, &RepresentationLoader::failed, this, &RepresentationView::on_failed);
    connect(loader_, &RepresentationLoader::progress, this, &RepresentationView::on_progress);
    connect(compute_button_, &QPushButton::clicked, this, &RepresentationView::compute);
    connect(cancel_button_, &QPushButton::clicked, this, &RepresentationView::cancel);
    connect(layer_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0) return;
        wanted_layer_ = index;
        on_layer_chosen();
    });
}

QHBoxLayout* RepresentationView::controls_row(const std::vector<std::pair<QString, QWidget*>>& extra) {
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel("Layer"));
    row->addWidget(layer_);
    for (const auto& [label, widget] : extra) {
        row->addWidget(new QLabel(label));
        row->addWidget(widget);
    }
    row->addWidget(compute_button_);
    row->addWidget(cancel_button_);
    row->addWidget(progress_);
    row->addStretch(1);
    return row;
}

void RepresentationView::set_encoder() {
    source_->set_encoder();
}

bool RepresentationView::set_run(const QString& name_or_dir) {
    return source_->set_run(name_or_dir);
}

QString RepresentationView::run() const {
    return source_->runs()->run_dir();
}

void RepresentationView::set_model(const QString& dir) {
    source_->set_model(dir);
}

QString RepresentationView::model() const {
    return source_->model();
}

QString RepresentationView::source_name() const {
    return source_->source_name();
}

void RepresentationView::set_source_name(const QString& name) {
    source_->set_source_name(name);
}

void RepresentationView::set_numbers(int count) {
    source_->set_count(count);
}

int RepresentationView::numbers() const {
    return source_->settings().count;
}

void RepresentationView::set_layer(int layer) {
    wanted_layer_ = layer;
    // The combo lists layers once a source is loaded; before that the wish waits for list_layers().
    if (layer >= 0 && layer < layer_->count()) layer_->setCurrentIndex(layer);
}

int RepresentationView::layer() const {
    return layer_->currentIndex();
}

void RepresentationView::set_program(const QString& fone) {
    loader_->set_program(fone);
}

void RepresentationView::list_layers(const Representations& source) {
    const QSignalBlocker block(layer_);
    layer_->clear();
    for (int l = 0; l < source.layer_names.size(); ++l)
        layer_->addItem(QStringLiteral("%1: %2").arg(l).arg(source.layer_names[l]));
    const int wanted = wanted_layer_ >= 0 ? wanted_layer_ : source.default_layer;
    layer_->setCurrentIndex(std::clamp(wanted, 0, layer_->count() - 1));
}

void RepresentationView::set_running(bool running) {
    compute_button_->setEnabled(!running);
    cancel_button_->setEnabled(running);
    if (!running) {
        progress_->setRange(0, 1000);
        progress_->setValue(progress_->maximum());
    }
}

void RepresentationView::compute() {
    debounce_->stop();
    if (cancel_) cancel_->store(true);
    const SourceSettings s = source_->settings();
    if (source_name() == "run" && s.run_dir.isEmpty()) {
        show_error("Choose a trained run (or the FoNE encoder as the source).");
        return;
    }
    if (source_name() == "model" && s.model_dir.isEmpty()) {
        show_error(
            "Choose a model folder: a downloaded Hugging Face model (config.json, model.safetensors, "
            "tokenizer.json).");
        return;
    }
    set_busy(true);
    set_running(true);
    show_info(source_->limit_note());
    follow_run(source_name() == "run" ? s.run_dir : QString());
    loader_->load(s);
}

void RepresentationView::cancel() {
    loader_->cancel();
    if (cancel_) cancel_->store(true);
    set_running(false);
    progress_->setValue(0);
    progress_->setFormat("cancelled");
    set_busy(false);
    show_info("Cancelled.");
}

void RepresentationView::on_progress(double fraction, const QString& what) {
    if (fraction < 0) {
        progress_->setRange(0, 0);  // busy, no fraction known
    } else {
        progress_->setRange(0, 1000);
        progress_->setValue(static_cast<int>(1000 * fraction));
    }
    // One line in the bar: what it is doing, shortened to the bar's width (all of it in the tooltip).
    const QFontMetrics metrics(progress_->font());
    const int room = progress_->contentsRect().width() - metrics.horizontalAdvance(" 100%") - 16;
    const QString shown = metrics.elidedText(what, Qt::ElideRight, std::max(0, room));
    progress_->setFormat(shown.isEmpty() ? QStringLiteral("%p%") : shown + " %p%");
    progress_->setToolTip(what);
}

QString RepresentationView::progress_text() const {
    return progress_->text();
}

void RepresentationView::on_failed(const QString& message) {
    set_running(false);
    progress_->setValue(0);
    progress_->setFormat("failed");
    show_error(message);
    set_busy(false);
    Q_EMIT failed(message);
}

}  // namespace fone::gui
