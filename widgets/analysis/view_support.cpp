#include "view_support.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSet>
#include <QShowEvent>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <algorithm>
#include <fstream>

#include "fone/store/run_store.h"
#include "run_catalog.h"

namespace fone::gui {

using nlohmann::json;

namespace tips {
const char* const kPeriod =
    "A period T: FoNE writes a number x as the point (cos 2πx/T, sin 2πx/T) on a circle, one circle per "
    "period T = 10, 100, 1000, … The point turns once every T, so its angle is (x mod T)/T of a full turn.";
const char* const kSlots =
    "Digit slots: m integer and n fractional digits, one (cos, sin) pair each. 'auto' takes just enough "
    "for the number.";
const char* const kBase =
    "The base of the periods: T = base^i. Base 10 gives one circle per decimal digit; other bases read the "
    "number's digits in that base.";
const char* const kRun =
    "A trained run of the store (only runs with a saved model are listed). '…' opens any run directory, "
    "e.g. a model exported with `fone export`.";
const char* const kSource =
    "Where the representation of each number comes from: the FoNE encoder itself (no model: the "
    "reference), or a trained run (its hidden state at the number token for FoNE runs, or the number "
    "tokens' embedding rows for digit-wise and subword runs).";
const char* const kSpectrum =
    "The discrete Fourier transform along the number axis: each dimension of the representation as a "
    "signal over the numbers 0, 1, 2, … A spike at frequency k means a pattern repeating every T = N/k "
    "numbers: FoNE's pairs give spikes exactly at T = 10, 100, 1000.";
const char* const kProbe =
    "A linear probe: can x mod T be read from the representation by a linear map? Fitted on 75% of the "
    "numbers, scored on the rest. A spike shows a period is present; the probe shows it is readable.";
}  // namespace tips

QString default_fone_program() {
    const QString env = qEnvironmentVariable("FONE_CLI");
    if (!env.isEmpty()) return env;
    return QCoreApplication::applicationDirPath() + "/fone";
}

// ---- FoneCall
// ----------------------------------------------------------------------------------------------

FoneCall::FoneCall(QString program, QObject* parent) : QObject(parent), program_(std::move(program)) {}

FoneCall::~FoneCall() {
    stop_process();
}

void FoneCall::stop_process() {
    ++generation_;
    if (timer_) {
        timer_->stop();
        timer_->deleteLater();
        timer_ = nullptr;
    }
    if (!process_) return;
    QProcess* p = process_;
    process_ = nullptr;
    p->disconnect(this);
    if (p->state() != QProcess::NotRunning) {
        p->kill();
        p->waitForFinished(2000);
    }
    p->deleteLater();
}

void FoneCall::cancel() {
    stop_process();
}

void FoneCall::start(const QStringList& args) {
    stop_process();
    const int generation = generation_;
    command_ = QFileInfo(program_).fileName() + " " + args.join(' ');
    process_ = new QProcess(this);
    process_->setProgram(program_);
    process_->setArguments(args);
    connect(process_, &QProcess::finished, this, [this, generation](int code, QProcess::ExitStatus status) {
        if (generation == generation_) finish(code, status);
    });
    connect(process_, &QProcess::errorOccurred, this, [this, generation](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart || generation != generation_) return;
        const QString why = process_->errorString();
        stop_process();
        Q_EMIT failed("cannot start " + program_ + " (" + why +
                      "): set FONE_CLI to the fone program, or put fone next to fone-workbench");
    });
    timer_ = new QTimer(this);
    timer_->setSingleShot(true);
    connect(timer_, &QTimer::timeout, this, [this, generation] {
        if (generation != generation_) return;
        stop_process();
        Q_EMIT failed(
            QStringLiteral("%1 took longer than %2 s and was stopped").arg(command_).arg(timeout_ms_ / 1000));
    });
    timer_->start(timeout_ms_);
    process_->start();
}

void FoneCall::finish(int exit_code, QProcess::ExitStatus status) {
    const QByteArray out = process_->readAllStandardOutput();
    const QByteArray err = process_->readAllStandardError();
    stop_process();
    json result;
    for (const QByteArray& line : out.split('\n')) {
        const json j = json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
        if (!j.is_discarded() && j.is_object()) result = j;
    }
    if (status == QProcess::NormalExit && exit_code == 0 && result.is_object()) {
        Q_EMIT succeeded(result);
        return;
    }
    // The child's own message: "fone predict: error: ..." lines, without the prefix.
    QStringList messages;
    for (const QString& line : QString::fromUtf8(err).split('\n', Qt::SkipEmptyParts)) {
        const QString text = line.section('\r', -1).trimmed();
        const int at = text.indexOf(": error: ");
        if (at >= 0) messages << text.mid(at + 9);
    }
    if (messages.isEmpty()) {
        QStringList tail = QString::fromUtf8(err).split('\n', Qt::SkipEmptyParts);
        tail = tail.mid(std::max<qsizetype>(0, tail.size() - 4));
        messages << tail.join('\n').trimmed();
    }
    QString how = status == QProcess::CrashExit ? QStringLiteral("crashed")
                  : exit_code != 0              ? QStringLiteral("failed (exit status %1)").arg(exit_code)
                                                : QStringLiteral("gave no JSON answer");
    messages.removeAll(QString());
    Q_EMIT failed(messages.isEmpty() ? command_.section(' ', 0, 1) + " " + how : messages.join('\n'));
}

// ---- RunPicker
// ---------------------------------------------------------------------------------------------

bool run_has_model(const QString& dir) {
    // Checkpoints are not deleted while the window runs: a run once seen with one is remembered (the pickers
    // ask for every run of the store when it changes).
    static QSet<QString> known;
    if (dir.isEmpty()) return false;
    if (known.contains(dir)) return true;
    if (!QFile::exists(dir + "/" + fone::kBestCheckpoint) &&
        !QFile::exists(dir + "/" + fone::kLastCheckpoint))
        return false;
    known.insert(dir);
    return true;
}

namespace {

json read_config(const QString& dir) {
    std::ifstream in((dir + "/" + fone::kConfigFile).toStdString());
    if (!in) return json::object();
    const json j = json::parse(in, nullptr, false);
    return j.is_object() ? j : json::object();
}

QString percent(double f) {
    return f < 0 ? QString() : QString::number(100.0 * f, 'f', 1) + "%";
}

}  // namespace

RunPicker::RunPicker(RunCatalog* catalog, QWidget* parent) : QWidget(parent), catalog_(catalog) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    combo_ = new QComboBox;
    combo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo_->setMinimumContentsLength(28);
    combo_->setToolTip(tips::kRun);
    browse_ = new QToolButton;
    browse_->setText("…");
    browse_->setToolTip("Open a run directory (any folder with config.json and a checkpoint)");
    layout->addWidget(combo_, 1);
    layout->addWidget(browse_);
    rebuild_timer_ = new QTimer(this);
    rebuild_timer_->setSingleShot(true);
    rebuild_timer_->setInterval(1500);
    connect(rebuild_timer_, &QTimer::timeout, this, &RunPicker::rebuild);
    connect(combo_, &QComboBox::currentIndexChanged, this, &RunPicker::on_index_changed);
    connect(browse_, &QToolButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, "Run directory", run_dir());
        if (!dir.isEmpty() && !set_run(dir))
            combo_->setToolTip(dir + " has no model (checkpoint-best.pt or checkpoint-last.pt)");
    });
    if (catalog_) {
        connect(catalog_, &RunCatalog::loaded, this, &RunPicker::rebuild);
        connect(catalog_, &RunCatalog::rowsInserted, this, [this] { rebuild_timer_->start(); });
        connect(catalog_, &RunCatalog::rowChanged, this, [this](int row) {
            // A run that just finished (or saved its first checkpoint) joins the list.
            const RunEntry& e = catalog_->at(row);
            if (e.status != "running" && e.status != "queued" && e.status != "starting")
                rebuild_timer_->start();
        });
    }
    rebuild();
}

int RunPicker::count() const {
    int n = 0;
    for (int i = 0; i < combo_->count(); ++i)
        n += !combo_->itemData(i).toString().isEmpty();
    return n;
}

QString RunPicker::run_dir() const {
    return current_;
}

QString RunPicker::run_name() const {
    return current_.isEmpty() ? QString() : QFileInfo(current_).fileName();
}

QString RunPicker::method() const {
    return QString::fromStdString(config_.value("method", std::string()));
}

bool RunPicker::set_run(const QString& name_or_dir) {
    QString dir;
    if (catalog_) {
        const int row = catalog_->row_of(name_or_dir);
        if (row >= 0) dir = catalog_->at(row).dir;
    }
    if (dir.isEmpty() && QFileInfo(name_or_dir).isDir()) dir = QFileInfo(name_or_dir).absoluteFilePath();
    if (dir.isEmpty() || !run_has_model(dir)) return false;
    dir = QDir::cleanPath(dir);
    if (!extra_dirs_.contains(dir)) extra_dirs_ << dir;
    current_ = dir;
    config_ = read_config(dir);
    rebuild();
    Q_EMIT runChanged(current_);
    return true;
}

void RunPicker::rebuild() {
    struct Item {
        QString dir, text, method;
        double best = -1;
        bool finished = false;
    };
    std::vector<Item> items;
    QSet<QString> seen;
    if (catalog_)
        for (int r = 0; r < catalog_->size(); ++r) {
            const RunEntry& e = catalog_->at(r);
            if (e.dir.isEmpty() || e.status == kRetired || !run_has_model(e.dir)) continue;
            const QString dir = QDir::cleanPath(e.dir);
            if (seen.contains(dir)) continue;
            seen.insert(dir);
            QString text = e.name + " — " + e.method + " · " + e.task;
            const double best = std::max(e.best_exact_match, e.exact_match);
            if (best >= 0) text += " · " + percent(best);
            if (e.status != "finished") text += " (" + e.status + ")";
            items.push_back({dir, text, e.method, best, e.status == "finished"});
        }
    for (const QString& dir : extra_dirs_) {
        if (seen.contains(dir)) continue;
        seen.insert(dir);
        const json c = read_config(dir);
        const QString method = QString::fromStdString(c.value("method", std::string("?")));
        items.push_back({dir,
                         QFileInfo(dir).fileName() + " — " + method + " · " +
                             QString::fromStdString(c.value("task", std::string("?"))) + " (" + dir + ")",
                         method, -1, true});
    }
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.text < b.text; });
    QString chosen = current_;
    if (chosen.isEmpty() && !items.empty()) {
        // The best finished FoNE run, else the best finished run, else the first.
        const Item* best = &items.front();
        auto score = [](const Item& i) {
            return (i.finished ? 4.0 : 0.0) + (i.method == "fone" ? 2.0 : 0.0) + i.best;
        };
        for (const Item& i : items)
            if (score(i) > score(*best)) best = &i;
        chosen = best->dir;
    }
    {
        const QSignalBlocker block(combo_);
        combo_->clear();
        for (const Item& i : items)
            combo_->addItem(i.text, i.dir);
        if (items.empty())
            combo_->addItem(catalog_ && !catalog_->is_loaded()
                                ? "(reading the run store…)"
                                : "(no trained run: train one, or open a run with …)",
                            QString());
        const int index = combo_->findData(chosen);
        combo_->setCurrentIndex(std::max(0, index));
    }
    if (chosen != current_) {
        current_ = chosen;
        config_ = read_config(chosen);
        Q_EMIT runChanged(current_);
    }
}

void RunPicker::on_index_changed() {
    const QString dir = combo_->currentData().toString();
    if (dir == current_) return;
    current_ = dir;
    config_ = dir.isEmpty() ? json::object() : read_config(dir);
    Q_EMIT runChanged(current_);
}

QString power_of_ten(int exponent) {
    static const QString kSuperscripts[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    if (exponent == 0) return QStringLiteral("1");
    QString out = exponent < 0 ? QStringLiteral("10⁻") : QStringLiteral("10");
    for (const QChar c : QString::number(std::abs(exponent)))
        out += kSuperscripts[c.digitValue()];
    return out;
}

namespace {
class ResizeWatcher : public QObject {
  public:
    ResizeWatcher(QWidget* widget, std::function<void()> f) : QObject(widget), f_(std::move(f)) {
        widget->installEventFilter(this);
    }
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Resize) f_();
        return QObject::eventFilter(watched, event);
    }

  private:
    std::function<void()> f_;
};
}  // namespace

void on_resize(QWidget* widget, std::function<void()> f) {
    new ResizeWatcher(widget, std::move(f));
}

// ---- AnalysisView
// ------------------------------------------------------------------------------------------

AnalysisView::AnalysisView(QWidget* parent) : QWidget(parent) {}

void AnalysisView::set_busy(bool busy) {
    if (busy == busy_) return;
    busy_ = busy;
    Q_EMIT busyChanged(busy);
}

void AnalysisView::request_refresh() {
    if (isVisible()) {
        stale_ = false;
        refresh();
    } else {
        stale_ = true;
    }
}

void AnalysisView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stale_) {
        stale_ = false;
        QTimer::singleShot(0, this, [this] { refresh(); });
    }
}

QLabel* AnalysisView::status_label() {
    if (!status_) {
        status_ = new QLabel;
        status_->setWordWrap(true);
        status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
        status_->setObjectName("status");
    }
    return status_;
}

QString AnalysisView::status_text() const {
    return status_ ? status_->text() : QString();
}

void AnalysisView::show_error(const QString& message) {
    status_label()->setStyleSheet("color: #c62828;");
    status_label()->setText(message);
}

void AnalysisView::show_info(const QString& message) {
    status_label()->setStyleSheet(QString());
    status_label()->setText(message);
}

// ---- Sources
// -----------------------------------------------------------------------------------------------

FoneSpec fitted_spec(const std::vector<Decimal>& numbers, int int_digits, int frac_digits, int base) {
    FoneSpec spec;
    spec.base = base;
    int m = 1, n = 0;
    for (const Decimal& x : numbers) {
        if (base == 10) {
            m = std::max(m, x.int_digit_count());
            n = std::max(n, x.frac_digit_count());
        } else {
            Decimal limit = Decimal::from_int(base);
            int digits = 1;
            while (compare_abs(x, limit) >= 0 && digits < Decimal::kMaxDigits) {
                limit = limit * Decimal::from_int(base);
                ++digits;
            }
            m = std::max(m, digits);
        }
    }
    spec.int_digits = int_digits >= 0 ? int_digits : m;
    spec.frac_digits = frac_digits >= 0 ? frac_digits : n;
    spec.validate();
    return spec;
}

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
    const std::string method = config.value("method", std::string());
    if (method == "subword") return 1000;
    if (method == "ntl") return config.value("ntl_tokens", std::string("digit")) == "subword" ? 1000 : 10;
    if (method == "digit" || method == "abacus" || method == "fone+abacus") return 10;
    return 0;
}

}  // namespace

SourceBox::SourceBox(RunCatalog* catalog, QWidget* parent) : QWidget(parent) {
    auto* rows = new QVBoxLayout(this);
    rows->setContentsMargins(0, 0, 0, 0);
    auto* first = new QHBoxLayout;
    auto* second = new QHBoxLayout;
    rows->addLayout(first);
    rows->addLayout(second);
    kind_ = new QComboBox;
    kind_->addItems({"FoNE encoder (no model)", "A trained run"});
    kind_->setToolTip(tips::kSource);
    runs_ = new RunPicker(catalog);
    first->addWidget(new QLabel("Source"));
    first->addWidget(kind_);
    first->addWidget(runs_, 1);
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
    connect(runs_, &RunPicker::runChanged, this, [this] {
        const int limit = token_number_limit(runs_->config());
        if (limit > 0 && kind_->currentIndex() == 1) {
            count_->setValue(std::min(count_->value(), limit));
            start_->setText("0");
            step_->setText("1");
        }
        update_enabled();
        if (kind_->currentIndex() == 1) Q_EMIT sourceChanged();
        Q_EMIT changed();
    });
    for (QSpinBox* s : {count_, int_digits_, frac_digits_, base_})
        connect(s, &QSpinBox::valueChanged, this, &SourceBox::changed);
    for (QLineEdit* e : {start_, step_})
        connect(e, &QLineEdit::editingFinished, this, &SourceBox::changed);
    update_enabled();
}

void SourceBox::update_enabled() {
    const bool run = kind_->currentIndex() == 1;
    runs_->setEnabled(run);
    for (QWidget* w : std::initializer_list<QWidget*>{int_digits_, frac_digits_, base_})
        w->setEnabled(!run);
}

SourceSettings SourceBox::settings() const {
    SourceSettings s;
    if (kind_->currentIndex() == 1) s.run_dir = runs_->run_dir();
    s.count = count_->value();
    s.start = start_->text().trimmed();
    s.step = step_->text().trimmed();
    if (s.run_dir.isEmpty()) {
        s.int_digits = int_digits_->value();
        s.frac_digits = frac_digits_->value();
        s.base = base_->value();
    }
    return s;
}

QString SourceBox::limit_note() const {
    if (kind_->currentIndex() != 1) return {};
    const int limit = token_number_limit(runs_->config());
    if (limit == 10)
        return "This run writes numbers digit by digit: only the ten digit tokens 0..9 have an embedding "
               "row.";
    if (limit == 1000)
        return "This run writes numbers in chunks of up to 3 digits: the numbers 0..999 are tokens.";
    return {};
}

void SourceBox::set_encoder() {
    kind_->setCurrentIndex(0);
}

bool SourceBox::set_run(const QString& name_or_dir) {
    kind_->setCurrentIndex(1);
    return runs_->set_run(name_or_dir);
}

QString SourceBox::source_name() const {
    return settings().run_dir.isEmpty() ? "encoder" : "run";
}

void SourceBox::set_source_name(const QString& name) {
    if (name == "encoder")
        set_encoder();
    else if (!runs_->run_dir().isEmpty())
        set_run(runs_->run_dir());
}

void SourceBox::set_count(int count) {
    count_->setValue(count);
}

// ---- RepresentationLoader
// ----------------------------------------------------------------------------------

RepresentationLoader::RepresentationLoader(QObject* parent)
    : QObject(parent), call_(new FoneCall(default_fone_program(), this)) {
    connect(call_, &FoneCall::succeeded, this, &RepresentationLoader::read_dump);
    connect(call_, &FoneCall::failed, this, [this](const QString& message) {
        dir_.reset();
        Q_EMIT failed(message);
    });
    connect(&watcher_, &QFutureWatcher<RepresentationResult>::finished, this, [this] {
        if (watcher_.isCanceled() || cancel_->load()) return;
        const RepresentationResult result = watcher_.result();
        dir_.reset();
        if (!result.value) {
            Q_EMIT failed(result.error);
            return;
        }
        last_ = result.value;
        last_settings_ = pending_;
        Q_EMIT loaded(result.value);
    });
    cancel_ = std::make_shared<std::atomic<bool>>(false);
}

RepresentationLoader::~RepresentationLoader() {
    cancel();
    watcher_.waitForFinished();
}

bool RepresentationLoader::running() const {
    return call_->running() || watcher_.isRunning();
}

void RepresentationLoader::cancel() {
    call_->cancel();
    cancel_->store(true);
    dir_.reset();
}

void RepresentationLoader::load(const SourceSettings& settings) {
    cancel();
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    pending_ = settings;
    if (last_ && settings == last_settings_) {
        QTimer::singleShot(0, this, [this, keep = last_] { Q_EMIT loaded(keep); });
        return;
    }
    Decimal start, step;
    std::string why;
    if (!Decimal::try_parse(settings.start.toStdString(), start, &why)) {
        QTimer::singleShot(0, this, [this, why] {
            Q_EMIT failed("'from' is not a number: " + QString::fromStdString(why));
        });
        return;
    }
    if (!Decimal::try_parse(settings.step.toStdString(), step, &why) || step.is_zero() || step.negative()) {
        QTimer::singleShot(0, this, [this] { Q_EMIT failed("'step' must be a positive number"); });
        return;
    }
    if (!settings.run_dir.isEmpty()) {
        dir_ = std::make_unique<QTemporaryDir>();
        if (!dir_->isValid()) {
            QTimer::singleShot(0, this, [this] { Q_EMIT failed("cannot make a temporary folder"); });
            return;
        }
        Q_EMIT progress(
            -1, QStringLiteral("asking fone for the hidden states of %1 numbers…").arg(settings.count));
        call_->start({"analyse", "dump", "--source", "run", "--run", settings.run_dir, "--numbers",
                      QString::number(settings.count), "--start", settings.start, "--step", settings.step,
                      "--out", dir_->path()});
        return;
    }
    Q_EMIT progress(0, "encoding the numbers…");
    auto cancel = cancel_;
    watcher_.setFuture(QtConcurrent::run([settings, start, step, cancel]() -> RepresentationResult {
        try {
            auto r = std::make_shared<Representations>();
            r->numbers = analysis::number_range(start, step, settings.count);
            const FoneSpec spec =
                fitted_spec(r->numbers, settings.int_digits, settings.frac_digits, settings.base);
            if (cancel->load()) return {};
            r->layers.push_back(analysis::encoder_matrix(r->numbers, spec));
            r->layer_names << "FoNE encoder";
            r->step = step.to_double();
            r->description = QStringLiteral("FoNE encoder (m=%1, n=%2, base %3)")
                                 .arg(spec.int_digits)
                                 .arg(spec.frac_digits)
                                 .arg(spec.base);
            return {r, {}};
        } catch (const std::exception& e) {
            return {nullptr, QString::fromStdString(e.what())};
        }
    }));
}

void RepresentationLoader::read_dump(const json& result) {
    std::vector<std::pair<std::string, QString>> files;  // csv path, layer name
    if (result.contains("layers") && result["layers"].is_array())
        for (const json& l : result["layers"])
            files.push_back(
                {l.value("csv", std::string()), QString::fromStdString(l.value("name", std::string()))});
    if (files.empty()) {
        dir_.reset();
        Q_EMIT failed("fone analyse dump listed no layers");
        return;
    }
    const double step = result.value("step", 1.0);
    const int chosen = result.value("chosen_layer", static_cast<int>(files.size()) - 1);
    const QString description = QString::fromStdString(result.value("source", std::string()));
    Q_EMIT progress(0, QStringLiteral("reading %1 layers…").arg(files.size()));
    auto cancel = cancel_;
    watcher_.setFuture(
        QtConcurrent::run([files, step, chosen, description, cancel]() -> RepresentationResult {
            try {
                auto r = std::make_shared<Representations>();
                for (const auto& [path, name] : files) {
                    if (cancel->load()) return {};
                    analysis::RepresentationTable t = analysis::read_representation_csv(path);
                    if (r->layers.empty()) r->numbers = std::move(t.numbers);
                    r->layers.push_back(std::move(t.values));
                    r->layer_names << name;
                }
                r->step = step;
                r->default_layer = std::clamp(chosen, 0, static_cast<int>(r->layers.size()) - 1);
                r->description = description.section(',', 0, 0);
                return {r, {}};
            } catch (const std::exception& e) {
                return {nullptr, QString::fromStdString(e.what())};
            }
        }));
}

}  // namespace fone::gui
