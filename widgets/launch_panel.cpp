#include "launch_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPainter>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QThread>
#include <QVBoxLayout>
#include <cmath>
#include <optional>

#include "fone/store/run_store.h"
#include "fone/store/train_config.h"
#include "fone/tasks/tasks.h"
#include "fone/tasks/typed_sums.h"
#include "recipes.h"
#include "run_catalog.h"

namespace fone::gui {

using nlohmann::json;

namespace {

const char* const kModelKeys[] = {"hidden", "layers", "heads", "kv_heads", "intermediate"};
const char* const kIntKeys[] = {"train_size", "test_size", "epochs", "batch", "seed", "threads"};
const char* const kDefaultModel = "Default for the task and size";
const char* const kDefaultChoice = "default";

// A field's problem, under its title beside the field: one line always reserved (the rows never move when a
// problem comes or goes), elided to the column's width; the whole sentence is its tooltip.
class FieldMessage : public QLabel {
  public:
    FieldMessage() {
        setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
        setFixedHeight(fontMetrics().height());
    }

  protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        p.setPen(QColor(0xd6, 0x27, 0x28));  // the red of the field's border
        p.drawText(rect(), Qt::AlignLeft | Qt::AlignTop,
                   fontMetrics().elidedText(text(), Qt::ElideRight, width()));
    }
};

// The cores of this computer: more threads than that only slow a run down.
int core_count() {
    return std::max(1, QThread::idealThreadCount());
}

const char* const kResolvedTip =
    "The settings the run will get: your fields over the defaults and the preset.";
// The source of what the form's fields set, where the "Will train" line's tooltip lists every setting's.
const char* const kSourceForm = "this form";

// Training examples: swap_operands adds b+a for every a+b (and a*b) with a ≠ b, almost doubling them.
bool swaps_double(const TrainConfig& c) {
    const TaskKind k = c.task.kind;
    return c.swap_operands && (k == TaskKind::dec_add || k == TaskKind::int_add || k == TaskKind::mul3 ||
                               k == TaskKind::mul4 || k == TaskKind::long_add);
}

QStringList from_std(const std::vector<std::string>& v) {
    QStringList out;
    for (const std::string& s : v)
        out << QString::fromStdString(s);
    return out;
}

QString json_text(const json& v) {
    if (v.is_string()) return QString::fromStdString(v.get<std::string>());
    if (v.is_number_unsigned()) return QString::number(v.get<unsigned long long>());
    if (v.is_number_integer()) return QString::number(v.get<long long>());
    // The shortest text that reads back as the same double: what is validated is what the run gets.
    if (v.is_number()) return QString::number(v.get<double>(), 'g', QLocale::FloatingPointShortest);
    return {};
}

// "Will train: dec-add with fone, 51,200 examples, ...": what the run gets, in a sentence.
QString will_train_text(const TrainConfig& c) {
    const QString shape = c.size_level > 0 ? QStringLiteral("level %1").arg(c.size_level)
                                           : QStringLiteral("hidden %1, %2 layers, %3 heads")
                                                 .arg(c.model.hidden)
                                                 .arg(c.model.layers)
                                                 .arg(c.model.heads);
    // Steps as the trainer counts them: ceil(examples / batch) per epoch, the swapped copies included.
    const bool swaps = swaps_double(c);
    const double examples = double(c.train_size) * (swaps ? 2 : 1);
    QString text = QStringLiteral(
                       "Will train: %1 with %2, %3 examples%4, %5; lr %6 %7, batch %8, %9 "
                       "epochs (%10%11 steps), seed %12")
                       .arg(QString::fromStdString(task_name(c.task.kind)), QString::fromStdString(c.method),
                            format_count(double(c.train_size)),
                            swaps ? QStringLiteral(" and their swaps (b+a for a+b)") : QString(), shape,
                            QString::number(c.lr, 'g', 3), QString::fromStdString(c.schedule))
                       .arg(c.batch)
                       .arg(c.epochs)
                       .arg(swaps ? QStringLiteral("about ") : QString())
                       .arg(format_count(double(c.epochs) * std::ceil(examples / c.batch)))
                       .arg(c.seed);
    if (c.target_acc > 0)  // the trainer's rule, in --target-acc's words
        text += QStringLiteral("; stops once the test exact match%2 reaches %1%")
                    .arg(100.0 * c.target_acc, 0, 'g', 4)
                    .arg(c.task.sampling == "typed" && has_typed_sums(c.task.kind)
                             ? QStringLiteral(" and every typed shape's")
                             : QString());
    return text;
}

// "From preset paper: batch, clip, epochs and 18 more": the settings that come neither from a default nor
// from the form, by source (a preset; the pretrained defaults), so that a preset's changes are seen.
QString sources_line(const ResolvedSettings& r) {
    QMap<QString, QStringList> by_source;
    for (const SourcedSetting& s : r.settings)
        if (s.source != kSourceDefault && s.source != kSourceTaskDefault && s.source != kSourceForm)
            by_source[QString::fromStdString(s.source)] << QString::fromStdString(s.key);
    QStringList parts;
    for (auto it = by_source.begin(); it != by_source.end(); ++it) {
        const QStringList& keys = it.value();
        parts << QStringLiteral("from %1: %2").arg(it.key(), keys.mid(0, 4).join(", ")) +
                     (keys.size() > 4 ? QStringLiteral(" and %1 more").arg(keys.size() - 4) : QString());
    }
    if (parts.isEmpty()) return {};
    parts[0][0] = parts[0][0].toUpper();
    return parts.join("; ");
}

// Every setting, its value and where it comes from, as `fone train --dry-run` prints them.
QString sources_tooltip(const ResolvedSettings& r) {
    QStringList lines{"The settings the run will get (as fone train --dry-run lists them):"};
    for (const SourcedSetting& s : r.settings)
        lines << QStringLiteral("%1 = %2  (%3)")
                     .arg(QString::fromStdString(s.key),
                          s.value.is_string() ? json_text(s.value) : QString::fromStdString(s.value.dump()),
                          QString::fromStdString(s.source));
    return lines.join('\n');
}

struct Preset {
    QString title;
    json settings;
};

// The Preset menu is a recipe (experiments/recipes/launch.json): one entry per cell, titled by its labels.
// Without the file (a broken install) the menu is empty and its tooltip says why.
std::vector<Preset> presets(QString* problem = nullptr) {
    std::vector<Preset> out;
    try {
        for (const ExperimentCell& cell : window_recipe("launch").preset("window").cells)
            out.push_back({QString::fromStdString(cell.labels.value("title", cell.id)), cell.settings});
    } catch (const std::exception& e) {
        if (problem) *problem = QString::fromStdString(e.what());
    }
    return out;
}

}  // namespace

LaunchPanel::LaunchPanel(QWidget* parent) : QWidget(parent) {
    // The fields scroll when the dock is short; the "Will train" line, the problems and the launch button
    // stay visible below them.
    auto* top = new QVBoxLayout(this);
    top->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* fields = new QWidget;
    scroll->setWidget(fields);
    top->addWidget(scroll, 1);
    auto* outer = new QVBoxLayout(fields);
    auto* form = new QFormLayout;
    form_ = form;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    presets_ = new QComboBox;
    presets_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    presets_->setMinimumContentsLength(8);
    presets_->addItem("Choose a preset…");
    QString presets_problem;
    for (const Preset& p : presets(&presets_problem))
        presets_->addItem(p.title);
    presets_->setToolTip(
        presets_problem.isEmpty()
            ? "Fill the fields with a recipe (experiments/recipes/launch.json). \"Paper\" is the paper's "
              "training recipe: size level 4, lr 5e-3, batch 512, 100 epochs, 20% warm-up then cosine, clip "
              "1.0."
            : "No presets: " + presets_problem);
    form->addRow("Preset", presets_);
    connect(presets_, &QComboBox::activated, this, [this](int i) {
        if (i > 0) apply_preset(presets_->itemText(i));
        presets_->setCurrentIndex(0);
    });

    add_combo(form, "task", "Task", from_std(task_names()),
              "dec-add: 6-digit decimal addition; int-add: integer addition; sub: subtraction; mul3/mul4: "
              "multiplication; classify: a linear threshold on three numbers; mod-add: modular addition.");
    add_combo(
        form, "method", "Number method", from_std(method_names()),
        "How numbers enter the model. fone: each number is ONE token, embedded as [cos 2πx/T, sin 2πx/T] "
        "for T = 10, 100, … (one pair per digit), and each answer digit is read back from two entries of "
        "the last hidden state.");
    QStringList shapes{kDefaultModel};
    for (int level = 1; level <= 6; ++level)
        shapes << QStringLiteral("Level %1 (paper)").arg(level);
    shapes << "Custom";
    add_combo(form, "model", "Model size", shapes,
              "The paper's size levels: hidden 64·level, level layers, intermediate 4·hidden. Custom: choose "
              "the shape below.");
    for (const char* key : kModelKeys)
        add_edit(form, key, QStringLiteral("   %1").arg(QString(key).replace('_', ' ')), "Custom shape");
    add_edit(form, "train_size", "Training set size", "Number of training examples (the paper sweeps 2^k).");
    add_edit(form, "test_size", "Test set size", "Test examples used for exact match after each evaluation.");
    add_edit(form, "lr", "Learning rate", "Peak learning rate of AdamW, e.g. 3e-3.");
    add_combo(form, "schedule", "Schedule", {kDefaultChoice, "cosine", "constant"},
              "cosine: linear warm-up, then cosine decay to 0; constant: warm-up, then flat.");
    add_edit(form, "epochs", "Epochs", "Passes over the training set.");
    add_edit(form, "batch", "Batch size", "Examples per optimiser step.");
    add_edit(form, "seed", "Seed", "Seeds the data, the initialisation and the batch order.");
    add_combo(form, "device", "Device", {"auto", "cpu", "cuda"}, "Where the run trains.");
    add_combo(form, "precision", "Precision", {kDefaultChoice, "fp32", "bf16"},
              "fp32 (the default): every product in 32-bit floats. bf16: the forward pass's matrix products "
              "in bfloat16 (autocast), weights, gradients and the loss in fp32; faster on a GPU, "
              "within a few percent of fp32's loss. fone train --precision.");
    add_edit(form, "threads", "CPU threads",
             QStringLiteral("0: auto, from the CPUs free now, adapted while training (this computer has %1). "
                            "Use 1 when several runs train at once. fone train --threads.")
                 .arg(core_count()));
    processes_ = new QSpinBox;
    processes_->setRange(1, core_count());
    processes_->setToolTip(
        "Processes that train this one run together (data-parallel: fone train --nproc), "
        "each with its share of the threads. 1: one process.");
    form->addRow("Processes", processes_);
    add_edit(form, "target_acc", "Stop at exact match (%)",
             "Stop once the test exact match reaches this percentage, e.g. 99 (typed sampling: and every "
             "typed shape's). fone train --target-acc 0.99.");
    add_edit(form, "name", "Run name", "Empty: made from task, method and time.");
    outer->addLayout(form);

    resolved_ = new QLabel;
    resolved_->setWordWrap(true);
    resolved_->setToolTip(kResolvedTip);
    launch_button_ = new QPushButton("Launch run");
    launch_button_->setToolTip("Start training with these settings (Ctrl+Return)");
    connect(launch_button_, &QPushButton::clicked, this, &LaunchPanel::launch);
    outer->addStretch(1);
    // A field's problem shows beside it (titled()); what concerns no field (the store, several settings
    // together) sits by the button, in room for two lines always: nothing above it moves or shrinks.
    problems_ = new QLabel;
    problems_->setWordWrap(true);
    problems_->setStyleSheet("color: #d62728;");
    problems_->setFixedHeight(2 * problems_->fontMetrics().lineSpacing() + 4);
    problems_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    auto* button_row = new QVBoxLayout;
    button_row->setContentsMargins(8, 4, 8, 8);
    // What the button will train (and its estimate) sits with it, outside the scrolling fields, so that it
    // is read before every launch on a short screen too (at 1280 x 720 it was below the fold).
    button_row->addWidget(resolved_);
    button_row->addWidget(problems_);
    button_row->addWidget(launch_button_);
    top->addLayout(button_row);

    combos_["task"]->setCurrentText("dec-add");
    connect(combos_["model"], &QComboBox::currentIndexChanged, this, &LaunchPanel::update_model_fields);
    update_model_fields();
    validate();
}

QLineEdit* LaunchPanel::add_edit(QFormLayout* form, const QString& key, const QString& title,
                                 const QString& tip) {
    auto* edit = new QLineEdit;
    edit->setObjectName(key);
    edit->setToolTip(tip);
    edit->setClearButtonEnabled(true);
    edit->setProperty("tip", tip);
    form->addRow(titled(key, title), edit);
    edits_[key] = edit;
    titles_[key] = title.trimmed();
    connect(edit, &QLineEdit::textChanged, this, &LaunchPanel::validate);
    return edit;
}

// The title of a field's row with the line of its problem under it.
QWidget* LaunchPanel::titled(const QString& key, const QString& title) {
    auto* cell = new QWidget;
    auto* column = new QVBoxLayout(cell);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    column->addWidget(new QLabel(title));
    auto* message = new FieldMessage;
    message->setObjectName(key + "_problem");
    column->addWidget(message);
    messages_[key] = message;
    return cell;
}

QComboBox* LaunchPanel::add_combo(QFormLayout* form, const QString& key, const QString& title,
                                  const QStringList& items, const QString& tip) {
    auto* combo = new QComboBox;
    combo->setObjectName(key);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(8);
    combo->addItems(items);
    combo->setToolTip(tip);
    combo->setProperty("tip", tip);
    form->addRow(titled(key, title), combo);
    combos_[key] = combo;
    titles_[key] = title.trimmed();
    connect(combo, &QComboBox::currentIndexChanged, this, &LaunchPanel::validate);
    return combo;
}

void LaunchPanel::update_model_fields() {
    const bool custom = combos_["model"]->currentText() == "Custom";
    for (const char* key : kModelKeys) {
        edits_[key]->setEnabled(custom);
        form_->setRowVisible(edits_[key], custom);
    }
}

QString LaunchPanel::plain_number(const QString& text) {
    // "6,400" as the window itself writes numbers (format_count): commas between groups of three digits.
    static const QRegularExpression grouped(R"(^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$)");
    return grouped.match(text).hasMatch() ? QString(text).remove(',') : text;
}

json LaunchPanel::settings() const {
    json s = json::object();
    for (auto it = combos_.begin(); it != combos_.end(); ++it) {
        const QString value = it.value()->currentText();
        if (it.key() == "model") {
            if (value.startsWith("Level")) s["size_level"] = value.section(' ', 1, 1).toInt();
            if (value == "Custom") {
                s["size_level"] = 0;
                json model = json::object();
                for (const char* key : kModelKeys) {
                    // Whole numbers of any size go through: the config says which are out of range.
                    bool ok = false;
                    const qlonglong v = plain_number(edits_[key]->text().trimmed()).toLongLong(&ok);
                    if (ok) model[key] = v;
                }
                s["model"] = model;
            }
        } else if (value != kDefaultChoice && !(it.key() == "device" && value == "auto")) {
            s[it.key().toStdString()] = value.toStdString();
        }
    }
    for (auto it = edits_.begin(); it != edits_.end(); ++it) {
        const QString key = it.key(), text = plain_number(it.value()->text().trimmed());
        if (text.isEmpty() ||
            std::find(std::begin(kModelKeys), std::end(kModelKeys), key) != std::end(kModelKeys))
            continue;
        bool ok = false;
        if (key == "name") {
            s["name"] = it.value()->text().trimmed().toStdString();  // a name is not a number
        } else if (std::find(std::begin(kIntKeys), std::end(kIntKeys), key) != std::end(kIntKeys)) {
            const qlonglong v = text.toLongLong(&ok);
            if (ok) {
                s[key.toStdString()] = v;
            } else if (const qulonglong u = text.toULongLong(&ok); ok) {
                s[key.toStdString()] = u;  // seeds above 2^63
            }
        } else {
            const double v = text.toDouble(&ok);
            // The target is typed as a percentage; the run takes a fraction.
            if (ok) s[key.toStdString()] = key == "target_acc" ? v / 100.0 : v;
        }
    }
    if (!property("preset").toString().isEmpty()) s["preset"] = property("preset").toString().toStdString();
    return s;
}

void LaunchPanel::validate() {
    if (loading_) return;
    QMap<QString, QString> errors;
    // Text that is not a number never reaches the config: say so at the field.
    for (auto it = edits_.begin(); it != edits_.end(); ++it) {
        const QString key = it.key(), text = plain_number(it.value()->text().trimmed());
        if (text.isEmpty() || key == "name" || !it.value()->isEnabled()) continue;
        bool ok = false;
        const bool integer =
            std::find(std::begin(kIntKeys), std::end(kIntKeys), key) != std::end(kIntKeys) ||
            std::find(std::begin(kModelKeys), std::end(kModelKeys), key) != std::end(kModelKeys);
        if (integer) {
            const qlonglong v = text.toLongLong(&ok);
            if (ok && v < 0) errors[key] = "must not be negative";
            if (!ok) text.toULongLong(&ok);  // a seed above 2^63 is still a whole number
            if (!ok && QRegularExpression("^[0-9]+$").match(text).hasMatch()) errors[key] = "too large";
        } else {
            const double v = text.toDouble(&ok);
            ok = ok && std::isfinite(v);
            if (ok && key == "target_acc" && (v <= 0 || v > 100))
                errors[key] = "a percentage above 0, at most 100";
        }
        if (!ok && !errors.contains(key))
            errors[key] = integer               ? "must be a whole number"
                          : key == "target_acc" ? "must be a percentage, e.g. 99"
                                                : "must be a number, e.g. 3e-3";
        if (ok && key == "threads" && text.toLongLong() > core_count())
            errors[key] = QStringLiteral("at most %1: this computer has %1 cores").arg(core_count());
    }
    QString general;
    // One resolution for the placeholders, the "Will train" line and the check: the one a run gets. The
    // fields are one layer; the resolver adds the defaults for the task and size and the preset named.
    std::optional<ResolvedSettings> r;
    QString problem;
    try {
        r = resolve_with_sources({{kSourceForm, settings()}}, /*validate=*/false);
        if (errors.isEmpty()) r->config.validate();
    } catch (const std::exception& e) {
        problem = QString::fromUtf8(e.what());
    }
    if (errors.isEmpty() && problem.isEmpty()) {
        const QString sources = sources_line(*r);
        const QString duration = estimator_ ? estimator_(settings()) : QString();
        resolved_->setText(will_train_text(r->config) + (duration.isEmpty() ? QString() : "\n" + duration) +
                           (sources.isEmpty() ? QString() : "\n" + sources));
        resolved_->setToolTip(sources_tooltip(*r));
    } else {
        if (errors.isEmpty()) file_problems(problem, errors, general);
        resolved_->clear();
        resolved_->setToolTip(kResolvedTip);
    }
    show_errors(errors, general);
    if (r) update_placeholders(*r);
    const bool valid = errors.isEmpty() && general.isEmpty();
    launch_button_->setEnabled(valid && store_problem_.isEmpty());
    if (valid != valid_) {
        valid_ = valid;
        Q_EMIT validityChanged(valid);
    }
    Q_EMIT settingsChanged();
}

void LaunchPanel::show_errors(const QMap<QString, QString>& errors, const QString& general) {
    QStringList lines, elsewhere;  // every problem; those of no field
    for (auto it = titles_.begin(); it != titles_.end(); ++it) {
        const QString why = errors.value(it.key());
        QWidget* field = edits_.contains(it.key()) ? static_cast<QWidget*>(edits_[it.key()])
                                                   : static_cast<QWidget*>(combos_.value(it.key()));
        if (!field) continue;
        field->setStyleSheet(why.isEmpty() ? QString() : "border: 1px solid #d62728;");
        field->setToolTip(why.isEmpty() ? field->property("tip").toString()
                                        : why + "\n\n" + field->property("tip").toString());
        messages_[it.key()]->setText(why);
        messages_[it.key()]->setToolTip(why);
        if (!why.isEmpty()) lines << it.value() + ": " + why;
    }
    if (!general.isEmpty()) elsewhere << general;
    if (!store_problem_.isEmpty()) elsewhere << store_problem_;
    problems_text_ = (lines + elsewhere).join('\n');
    problems_->setText(elsewhere.join('\n'));
    problems_->setToolTip(elsewhere.join('\n'));
}

QString LaunchPanel::problems_text() const {
    return problems_text_;
}

QString LaunchPanel::field_problem(const QString& key) const {
    return messages_.contains(key) ? messages_[key]->text() : QString();
}

QString LaunchPanel::resolved_text() const {
    return resolved_->text();
}

void LaunchPanel::set_store_problem(const QString& problem) {
    store_problem_ = problem;
    validate();
}

void LaunchPanel::file_problems(const QString& what, QMap<QString, QString>& errors, QString& general) const {
    // One problem per line, "key: what is wrong"; a key without a field goes to the general label.
    for (const QString& line : what.split('\n', Qt::SkipEmptyParts)) {
        QString key = line.section(':', 0, 0).trimmed();
        if (key == "size_level" || key == "model") key = "model";
        const QString why = line.section(':', 1).trimmed();
        if (titles_.contains(key))
            errors[key] = why.isEmpty() ? line : why;
        else
            general += (general.isEmpty() ? "" : "\n") + line;
    }
}

void LaunchPanel::update_placeholders(const ResolvedSettings& r) {
    // What the empty fields will take: the values of the run's own resolution (defaults for the task and
    // size, default_train_size among them, and the preset), never a number of the panel's own.
    for (const char* key : {"train_size", "test_size", "lr", "epochs", "batch", "seed", "threads"})
        if (const SourcedSetting* s = r.find(key))
            edits_[key]->setPlaceholderText(key == std::string("threads") && s->value == 0
                                                ? QStringLiteral("default: auto")
                                                : "default " + json_text(s->value));
    const double target = r.config.target_acc;
    edits_["target_acc"]->setPlaceholderText(target > 0
                                                 ? QStringLiteral("default %1").arg(100 * target, 0, 'g', 4)
                                                 : QStringLiteral("none: all epochs"));
}

void LaunchPanel::load_settings(const json& config) {
    loading_ = true;
    setProperty("preset", QString());
    auto value = [&](const char* key) { return config_value(config, key); };
    for (auto it = edits_.begin(); it != edits_.end(); ++it)
        it.value()->clear();
    for (const char* key : {"train_size", "test_size", "lr", "epochs", "batch", "seed", "threads"})
        if (json v = value(key); v.is_number()) edits_[key]->setText(json_text(v));
    if (json v = value("target_acc"); v.is_number() && v.get<double>() > 0)
        edits_["target_acc"]->setText(QString::number(100.0 * v.get<double>(), 'g', 10));
    if (json v = value("task"); v.is_string()) combos_["task"]->setCurrentText(json_text(v));
    if (json v = value("method"); v.is_string()) combos_["method"]->setCurrentText(json_text(v));
    if (json v = value("schedule"); v.is_string()) combos_["schedule"]->setCurrentText(json_text(v));
    if (json v = value("device"); v.is_string()) combos_["device"]->setCurrentText(json_text(v));
    if (json v = value("precision"); v.is_string())
        combos_["precision"]->setCurrentText(json_text(v));
    else
        combos_["precision"]->setCurrentIndex(0);
    if (json v = value("preset"); v.is_string() && !v.get<std::string>().empty())
        setProperty("preset", json_text(v));
    const json level = value("size_level");
    const json model = value("model");
    if (level.is_number() && level.get<int>() > 0) {
        combos_["model"]->setCurrentIndex(level.get<int>());
    } else if (model.is_object() && !model.empty()) {
        combos_["model"]->setCurrentText("Custom");
        for (const char* key : kModelKeys)
            if (model.contains(key)) edits_[key]->setText(json_text(model[key]));
    } else {
        combos_["model"]->setCurrentIndex(0);
    }
    loading_ = false;
    update_model_fields();
    validate();
}

QStringList LaunchPanel::preset_titles() const {
    QStringList out;
    for (const Preset& p : presets())
        out << p.title;
    return out;
}

void LaunchPanel::apply_preset(const QString& title) {
    for (const Preset& p : presets())
        if (title == p.title) load_settings(p.settings);
}

void LaunchPanel::set_cuda_available(bool available, const QString& reason) {
    auto* model = qobject_cast<QStandardItemModel*>(combos_["device"]->model());
    QStandardItem* cuda = model->item(2);
    cuda->setEnabled(available);
    cuda->setToolTip(available ? "CUDA is available" : reason);
    if (!available && combos_["device"]->currentIndex() == 2) combos_["device"]->setCurrentIndex(0);
    combos_["device"]->setToolTip(available ? "auto picks CUDA" : "CUDA is greyed out: " + reason);
}

void LaunchPanel::launch() {
    validate();
    if (!valid_ || !store_problem_.isEmpty()) return;
    const json s = settings();
    QStringList args = train_args(s);
    if (processes_->value() > 1) args << "--nproc" << QString::number(processes_->value());
    Q_EMIT launchRequested(args, label_for(s));
}

QStringList LaunchPanel::train_args(const json& settings) {
    QStringList args;
    for (auto it = settings.begin(); it != settings.end(); ++it) {
        if (it.key() == "model") {
            for (auto m = it->begin(); m != it->end(); ++m)
                args << "--" + QString::fromStdString(m.key()).replace('_', '-') << json_text(*m);
            continue;
        }
        args << "--" + QString::fromStdString(it.key()).replace('_', '-') << json_text(*it);
    }
    return args;
}

QString LaunchPanel::label_for(const json& s) {
    QStringList parts;
    for (const char* key : {"task", "method"})
        if (s.contains(key)) parts << json_text(s[key]);
    if (s.contains("train_size")) parts << format_count(s["train_size"].get<double>());
    if (s.contains("size_level") && s["size_level"].get<int>() > 0)
        parts << QStringLiteral("level %1").arg(s["size_level"].get<int>());
    if (s.contains("seed")) parts << "seed " + json_text(s["seed"]);
    return parts.isEmpty() ? QStringLiteral("run with the defaults") : parts.join(' ');
}

}  // namespace fone::gui
