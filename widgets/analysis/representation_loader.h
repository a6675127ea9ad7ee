// Representations of a list of numbers, start, start+step, ...: the FoNE encoder's (in-process), a
// trained run's or a pretrained model folder's, one matrix per layer (through `fone analyse dump`), loaded
// off the GUI thread.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <atomic>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "fone/analysis/analysis.h"
#include "fone_call.h"

namespace fone::gui {

// Numbers and their representation, one numbers x D matrix per layer.
struct Representations {
    std::vector<Decimal> numbers;
    std::vector<Eigen::MatrixXd> layers;  // numbers x D, one per layer
    QStringList layer_names;
    int default_layer = 0;
    double step = 1.0;  // spacing of the numbers (periods in number units)
    QString description;
};

// Which representations to load: the numbers, and the encoder's slots, a run or a model folder.
struct SourceSettings {
    QString run_dir;    // "" : the FoNE encoder (or a model folder)
    QString model_dir;  // a Hugging Face model folder
    int count = 1000;
    QString start = "0", step = "1";
    int int_digits = -1, frac_digits = -1;  // encoder; -1: just enough for the numbers
    int base = 10;                          // encoder
    bool operator==(const SourceSettings&) const = default;
};

// What a worker hands back: the representations, or why there are none.
struct RepresentationResult {
    std::shared_ptr<const Representations> value;  // null on failure
    QString error;
};

// Loads representations off the GUI thread: the encoder in a worker; a run or a model folder through a
// child `fone analyse dump --source run|model ...` into a temporary folder, then its CSVs read in a
// worker. The last
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

}  // namespace fone::gui
