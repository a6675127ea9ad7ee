// What the analysis views of the workbench share (widgets/analysis/*_view.h): a `fone` child process that
// answers with one JSON line, a run picker over the run catalog (or any run directory, e.g. a bundled demo
// model), the busy/stale logic that keeps hidden docks from starting work, and the source of
// representations (the FoNE encoder in-process, or a trained run through `fone analyse dump`).
//
// No LibTorch here: anything that needs a trained model runs `fone` as a child process (the one next to
// the program, or $FONE_CLI) and reads its JSON; long computations run in QtConcurrent workers with the
// analyses' Progress (fraction done and a cancel flag).
#pragma once

#include <QComboBox>
#include <QFutureWatcher>
#include <QPointer>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>
#include <QTimer>
#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "fone/analysis/analysis.h"

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace fone::gui {

class RunCatalog;
struct WorkbenchContext;

// $FONE_CLI, else the `fone` next to this program (as the window's JobRunner finds it).
QString default_fone_program();

// One `fone ...` child whose answer is a JSON line on stdout (predict, eval, analyse). Never blocks: the
// result comes as a signal. Starting a new call kills the one still running (its answer is dropped).
// Errors: the child's own "fone X: error: ..." line, or why it could not start, crashed or timed out.
class FoneCall : public QObject {
    Q_OBJECT
  public:
    explicit FoneCall(QString program = default_fone_program(), QObject* parent = nullptr);
    ~FoneCall() override;
    void set_program(const QString& program) { program_ = program; }
    const QString& program() const { return program_; }
    void set_timeout_ms(int ms) { timeout_ms_ = ms; }

    void start(const QStringList& args);
    void cancel();  // kills a running child; neither signal follows
    bool running() const { return process_ != nullptr; }
    QString command_line() const { return command_; }

  Q_SIGNALS:
    void succeeded(const nlohmann::json& result);  // the last JSON object line on stdout
    void failed(const QString& message);

  private:
    void finish(int exit_code, QProcess::ExitStatus status);
    void stop_process();

    QString program_, command_;
    QProcess* process_ = nullptr;
    QTimer* timer_ = nullptr;
    int timeout_ms_ = 600000;
    int generation_ = 0;
};

// A run to look inside: a combo over the catalog's runs that have a model (checkpoint) and a "…" button
// for any run directory (a run outside the store, an exported model). Works without a catalog too.
class RunPicker : public QWidget {
    Q_OBJECT
  public:
    explicit RunPicker(RunCatalog* catalog, QWidget* parent = nullptr);
    // A run name of the store or a run directory; false (and nothing changes) when it has no model.
    bool set_run(const QString& name_or_dir);
    QString run_dir() const;                           // "" when none
    QString run_name() const;                          // the directory's name
    nlohmann::json config() const { return config_; }  // config.json of the chosen run, {} if unreadable
    QString method() const;                            // "fone", "digit", ... ("" when unknown)
    int count() const;
    QComboBox* combo() const { return combo_; }

  Q_SIGNALS:
    void runChanged(const QString& dir);

  private:
    void rebuild();
    void on_index_changed();

    RunCatalog* catalog_;
    QComboBox* combo_;
    QToolButton* browse_;
    QStringList extra_dirs_;  // chosen with set_run or "…", outside the catalog
    QString current_;
    nlohmann::json config_;
    QTimer* rebuild_timer_;
};

// 10 to a power as people write it: "10³", "10⁻²", "1" for 10⁰.
QString power_of_ten(int exponent);

// Calls `f` after every resize of `widget` (drawings that keep equal scales redraw at the new size).
void on_resize(QWidget* widget, std::function<void()> f);

// A run directory holds a model when it has checkpoint-best.pt or checkpoint-last.pt.
bool run_has_model(const QString& dir);

// Base of the analysis views: a `busy` property (the screenshot waits for it to clear), and work that is
// asked for while the view is hidden (a tab behind another) waits until it is shown, so opening the
// window never starts a LibTorch child per view.
class AnalysisView : public QWidget {
    Q_OBJECT
    Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
  public:
    explicit AnalysisView(QWidget* parent = nullptr);
    bool busy() const { return busy_; }
    // The message shown in the view's status line (errors in red); "" when none.
    QString status_text() const;

  Q_SIGNALS:
    void busyChanged(bool busy);

  protected:
    void set_busy(bool busy);
    // Runs refresh() now if the view is visible, else the next time it is shown.
    void request_refresh();
    virtual void refresh() {}
    void showEvent(QShowEvent* event) override;
    // A status line that views put in their layout.
    QLabel* status_label();
    void show_error(const QString& message);
    void show_info(const QString& message);

  private:
    bool busy_ = false;
    bool stale_ = false;
    QLabel* status_ = nullptr;
};

// ---- Representations of a list of numbers: the FoNE encoder, or a trained run's layers -----------------

struct Representations {
    std::vector<Decimal> numbers;
    std::vector<Eigen::MatrixXd> layers;  // numbers x D, one per layer
    QStringList layer_names;
    int default_layer = 0;
    double step = 1.0;  // spacing of the numbers (periods in number units)
    QString description;
};

struct SourceSettings {
    QString run_dir;  // "" : the FoNE encoder
    int count = 1000;
    QString start = "0", step = "1";
    int int_digits = -1, frac_digits = -1;  // encoder; -1: just enough for the numbers
    int base = 10;                          // encoder
    bool operator==(const SourceSettings&) const = default;
};

// The encoder's spec for a list of numbers: m and n just large enough unless given (as `fone analyse`).
FoneSpec fitted_spec(const std::vector<Decimal>& numbers, int int_digits, int frac_digits, int base);

// The widgets that choose a source: encoder or run, how many numbers from where, and the encoder's slots.
class SourceBox : public QWidget {
    Q_OBJECT
  public:
    SourceBox(RunCatalog* catalog, QWidget* parent = nullptr);
    SourceSettings settings() const;
    void set_encoder();
    bool set_run(const QString& name_or_dir);
    void set_count(int count);
    // "encoder" or "run"; setting "run" takes the run picked (if any), as the views' `source` property.
    QString source_name() const;
    void set_source_name(const QString& name);
    RunPicker* runs() const { return runs_; }
    // Token methods (digit, subword, ...) have embeddings only for the numbers that are one token.
    QString limit_note() const;

  Q_SIGNALS:
    void changed();        // any setting
    void sourceChanged();  // encoder <-> run, or another run (before changed())

  private:
    void update_enabled();
    QComboBox* kind_;
    RunPicker* runs_;
    QSpinBox *count_, *int_digits_, *frac_digits_, *base_;
    QLineEdit *start_, *step_;
};

struct RepresentationResult {
    std::shared_ptr<const Representations> value;  // null on failure
    QString error;
};

// Loads representations off the GUI thread: the encoder in a worker; a run through a child
// `fone analyse dump --source run ...` into a temporary folder, then its CSVs read in a worker. The last
// result is kept, so asking again for the same settings answers at once.
class RepresentationLoader : public QObject {
    Q_OBJECT
  public:
    explicit RepresentationLoader(QObject* parent = nullptr);
    ~RepresentationLoader() override;
    void set_program(const QString& program) { call_->set_program(program); }
    void load(const SourceSettings& settings);
    void cancel();
    bool running() const;
    std::shared_ptr<const Representations> last() const { return last_; }

  Q_SIGNALS:
    void progress(double fraction, const QString& what);  // fraction < 0: not known
    void loaded(std::shared_ptr<const Representations> result);
    void failed(const QString& message);

  private:
    void read_dump(const nlohmann::json& result);

    FoneCall* call_;
    QFutureWatcher<RepresentationResult> watcher_;
    std::unique_ptr<QTemporaryDir> dir_;
    SourceSettings pending_;
    SourceSettings last_settings_;
    std::shared_ptr<const Representations> last_;
    std::shared_ptr<std::atomic<bool>> cancel_;
};

// Tooltip texts shared by several views (FoNE terms for a newcomer).
namespace tips {
extern const char* const kPeriod;
extern const char* const kSlots;
extern const char* const kBase;
extern const char* const kRun;
extern const char* const kSource;
extern const char* const kSpectrum;
extern const char* const kProbe;
}  // namespace tips

}  // namespace fone::gui
