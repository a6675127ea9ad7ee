// How long a run will take, from the runs of the store that finished: the sweep designer's estimate of
// every cell and the Launch panel's "Time:" line. Per method: a finished run's cost is its training seconds
// per training example (train_seconds over train_size x epochs) times the cell's examples, plus what it spent
// besides training per epoch (elapsed_seconds - train_seconds: evaluations on the fixed test split, typed
// suite, checkpoints) times the cell's epochs: those do not grow with the training set (dividing all of it
// by the examples made a sweep over training-set sizes 1.6 times too long: bench_sweep_estimate). That is
// what a run of the same method, task (and corpus) and model shape costs; a run of the same method and task
// with another shape is scaled by the models' sizes (parameters without the embedding: the cost per token),
// never a run of another method (digit-wise reads 5 to 7 tokens a number where FoNE reads one: scaling FoNE's
// runs by parameters gave digit-wise cells a quarter of their time) nor of another task (other sequences). A
// cell without such a run has no estimate, and says which method and task it is waiting for. The estimate
// is a range: the spread of the runs it comes from (widened by a quarter each way when scaled).
#pragma once

#include <QString>
#include <map>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace fone::gui {

class RunCatalog;

// A cell's time estimate: seconds (-1: none), its range, and how it was found.
struct CellEstimate {
    double seconds = -1, low = -1, high = -1;
    int runs = 0;  // finished runs it comes from
    enum class Basis { none, measured, scaled } basis = Basis::none;
    // "about 4:10 (3:50–4:40)"; "" for none.
    QString text() const;
    // What a cell without an estimate waits for ("a finished digit run on dec-add").
    QString missing;
};

class RunSpeeds {
  public:
    explicit RunSpeeds(const RunCatalog* catalog) : catalog_(catalog) {}
    // Reads the finished runs' costs again (cached per run folder and summary: a store of thousands).
    void update();
    CellEstimate estimate(const nlohmann::json& settings) const;

  private:
    struct Speed {
        QString method, task, shape;
        double seconds_per_example = 0, seconds_per_epoch = 0, params = 0;
        double seconds(double examples, double epochs) const {
            return examples * seconds_per_example + epochs * seconds_per_epoch;
        }
    };
    const RunCatalog* catalog_;
    std::vector<Speed> speeds_;
    std::map<QString, std::optional<Speed>> cache_;  // by run folder and summary figures
};

}  // namespace fone::gui
