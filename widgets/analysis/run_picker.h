// Choosing a run to look inside: the runs of the catalog that have a model, or any run directory.
#pragma once

#include <QComboBox>
#include <QStringList>
#include <QTimer>
#include <QWidget>
#include <functional>

#include <nlohmann/json.hpp>

class QToolButton;

namespace fone::gui {

class RunCatalog;

// A run directory holds a model when it has checkpoint-best.safetensors or checkpoint-last.safetensors.
bool run_has_model(const QString& dir);

// The bundled demo model's run directory: $FONE_DEMO_MODEL, else share/fone-workbench/demo-model beside the
// program's bin/ (installed), else the source tree's resources/demo-model (a build tree); "" when none has a
// model.
QString demo_model_dir();

// A run to look inside: a combo over the catalog's runs that have a model (checkpoint), the bundled demo
// model, and a "…" button for any run directory (a run outside the store, an exported model). Works without
// a catalog too. Chosen by itself: the best finished FoNE run of the store, else the demo model.
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
    // Only runs of the kind a view takes (a run's config.json in, whether it is one out), named in words
    // for the empty list and for a run refused ("text runs"); the bundled demo model too must pass. Set
    // before the store is read.
    void set_accepts(std::function<bool(const nlohmann::json& config)> accepts, const QString& what);
    bool accepts(const QString& dir) const;

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
    bool demo_by_itself_ = false;  // the demo model is shown because the store had no run to pick
    nlohmann::json config_;
    QTimer* rebuild_timer_;
    std::function<bool(const nlohmann::json&)> accepts_;
    QString what_ = "trained run";  // what the view takes, for its empty list ("text run")
};

}  // namespace fone::gui
