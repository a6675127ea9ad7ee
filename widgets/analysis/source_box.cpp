#include "source_box.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

#include "fone/store/methods.h"
#include "view_tips.h"

namespace fone::gui {

using nlohmann::json;

namespace {

QSpinBox* auto_spin(int max, const QString& tip) {
    auto* s = new QSpinBox;
    s->setRange(-1, max);
    s->setSpecialValueText("auto");
    s->setValue(-1);
    s->setToolTip(tip);
    return s;
}

// How many numbers a run can represent: token methods have embedding rows only for their number tokens.
int token_number_limit(const json& config) {
    const std::string pieces = fone::number_pieces(config.value("method", std::string()), config);
    return pieces == "subword" ? 1000 : pieces == "digit" ? 10 : 0;
}

// The kinds of source, in the combo's order.
enum Kind { kEncoder = 0, kRun = 1, kModel = 2 };

}  // namespace

SourceBox::SourceBox(RunCatalog* catalog, QWidget* parent) : QWidget(parent) {
    auto* rows = new QVBoxLayout(this);
    rows->setContentsMargins(0, 0, 0, 0);
    auto* first = new QHBoxLayout;
    auto* second = new QHBoxLayout;
    rows->addLayout(first);
    rows->addLayout(second);
    kind_ = new QComboBox;
    kind_->addItems({"FoNE encoder (no model)", "A trained run", "A model folder"});
    kind_->setToolTip(tips::kSource);
    runs_ = new RunPicker(catalog);
    model_ = new QLineEdit;
    model_->setPlaceholderText("a Hugging Face model folder: config.json, model.safetensors, tokenizer.json");
    model_->setToolTip(
        "A downloaded Llama, Qwen2, GPT-2 or Pythia folder. Each number is read as the model reads it "
        "(its tokens after the beginning of text), and its hidden state at its last token is taken at every "
        "layer: 0 = the embeddings, the last after the final norm.");
    browse_ = new QPushButton("Browse…");
    first->addWidget(new QLabel("Source"));
    first->addWidget(kind_);
    first->addWidget(runs_, 1);
    first->addWidget(model_, 1);
    first->addWidget(browse_);
    count_ = new QSpinBox;
    count_->setRange(2, 100000);
    count_->setValue(1000);
    count_->setToolTip(
        "How many numbers: start, start + step, …  (N; the spectrum has frequencies k = 0..N/2)");
    start_ = new QLineEdit("0");
    step_ = new QLineEdit("1");
    for (QLineEdit* e : {start_, step_}) {
        e->setMaximumWidth(90);
        e->setToolTip("Exact decimals are fine (e.g. step 0.01)");
    }
    int_digits_ = auto_spin(60, tips::kSlots);
    frac_digits_ = auto_spin(30, tips::kSlots);
    base_ = new QSpinBox;
    base_->setRange(2, 36);
    base_->setValue(10);
    base_->setToolTip(tips::kBase);
    second->addWidget(new QLabel("Numbers"));
    second->addWidget(count_);
    second->addWidget(new QLabel("from"));
    second->addWidget(start_);
    second->addWidget(new QLabel("step"));
    second->addWidget(step_);
    second->addWidget(new QLabel("m"));
    second->addWidget(int_digits_);
    second->addWidget(new QLabel("n"));
    second->addWidget(frac_digits_);
    second->addWidget(new QLabel("base"));
    second->addWidget(base_);
    second->addStretch(1);
    connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
        update_enabled();
        Q_EMIT sourceChanged();
        Q_EMIT changed();
    });
    connect(model_, &QLineEdit::editingFinished, this, [this] {
        if (kind_->currentIndex() != kModel) return;
        Q_EMIT sourceChanged();
        Q_EMIT changed();
    });
    connect(browse_, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, "A model folder", model_->text());
        if (!dir.isEmpty()) set_model(dir);
    });
    connect(runs_, &RunPicker::runChanged, this, [this] {
        const int limit = token_number_limit(runs_->config());
        if (limit > 0 && kind_->currentIndex() == kRun) {
            count_->setValue(std::min(count_->value(), limit));
            start_->setText("0");
            step_->setText("1");
        }
        update_enabled();
        if (kind_->currentIndex() == kRun) Q_EMIT sourceChanged();
        Q_EMIT changed();
    });
    for (QSpinBox* s : {count_, int_digits_, frac_digits_, base_})
        connect(s, &QSpinBox::valueChanged, this, &SourceBox::changed);
    for (QLineEdit* e : {start_, step_})
        connect(e, &QLineEdit::editingFinished, this, &SourceBox::changed);
    update_enabled();
}

void SourceBox::update_enabled() {
    const int kind = kind_->currentIndex();
    runs_->setEnabled(kind == kRun);
    runs_->setVisible(kind != kModel);
    model_->setVisible(kind == kModel);
    browse_->setVisible(kind == kModel);
    for (QWidget* w : std::initializer_list<QWidget*>{int_digits_, frac_digits_, base_})
        w->setEnabled(kind == kEncoder);
}

SourceSettings SourceBox::settings() const {
    SourceSettings s;
    if (kind_->currentIndex() == kRun) s.run_dir = runs_->run_dir();
    if (kind_->currentIndex() == kModel) s.model_dir = model_->text().trimmed();
    s.count = count_->value();
    s.start = start_->text().trimmed();
    s.step = step_->text().trimmed();
    if (kind_->currentIndex() == kEncoder) {
        s.int_digits = int_digits_->value();
        s.frac_digits = frac_digits_->value();
        s.base = base_->value();
    }
    return s;
}

QString SourceBox::limit_note() const {
    if (kind_->currentIndex() != kRun) return {};
    const int limit = token_number_limit(runs_->config());
    if (limit == 10)
        return "This run writes numbers digit by digit: only the ten digit tokens 0..9 have an embedding "
               "row.";
    if (limit == 1000)
        return "This run writes numbers in chunks of up to 3 digits: the numbers 0..999 are tokens.";
    return {};
}

void SourceBox::set_encoder() {
    kind_->setCurrentIndex(kEncoder);
}

bool SourceBox::set_run(const QString& name_or_dir) {
    kind_->setCurrentIndex(kRun);
    return runs_->set_run(name_or_dir);
}

void SourceBox::set_model(const QString& dir) {
    const bool same = kind_->currentIndex() == kModel && model_->text() == dir;
    model_->setText(dir);
    if (kind_->currentIndex() != kModel) {
        kind_->setCurrentIndex(kModel);  // emits sourceChanged and changed
    } else if (!same) {
        Q_EMIT sourceChanged();
        Q_EMIT changed();
    }
}

QString SourceBox::model() const {
    return model_->text().trimmed();
}

QString SourceBox::source_name() const {
    if (kind_->currentIndex() == kModel) return "model";
    return settings().run_dir.isEmpty() ? "encoder" : "run";
}

void SourceBox::set_source_name(const QString& name) {
    if (name == "encoder")
        set_encoder();
    else if (name == "model")
        kind_->setCurrentIndex(kModel);
    else if (!runs_->run_dir().isEmpty())
        set_run(runs_->run_dir());
}

void SourceBox::set_count(int count) {
    count_->setValue(count);
}

}  // namespace fone::gui
