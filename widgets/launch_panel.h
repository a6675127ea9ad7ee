// The launch panel: every setting of a training run, checked as you type (a wrong field gets a red border,
// and what is wrong shows beside it, under its title, in a line each row always keeps, so the fields never
// move while you type; what concerns no one field is listed above the Launch button; from the same
// resolve_with_sources the CLI uses, plus the machine's core count for threads), presets, "re-run this
// run's config", and the `fone train` arguments it makes. Empty fields keep the defaults the task and
// training-set size choose (shown greyed in the field, from that same resolution); the "Will train" line
// names what a preset changes, and its tooltip lists every setting's source as `fone train --dry-run` does.
// "Stop at exact match" is a percentage like every accuracy the window shows.
#pragma once

#include <functional>

#include <QMap>
#include <QWidget>

#include <nlohmann/json.hpp>

#include "launch_kinds.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace fone {
struct ResolvedSettings;  // fone/store/train_config.h
}

namespace fone::gui {

class CorpusPicker;
class ModelFolderBox;

class LaunchPanel : public QWidget {
    Q_OBJECT
    // For `fone-workbench --screenshot --raise launch --set kind=text --set recipe=TITLE`.
    Q_PROPERTY(QString kind READ kind_name WRITE set_kind_name)
    Q_PROPERTY(QString recipe READ recipe WRITE apply_preset)
    Q_PROPERTY(QString corpus READ corpus_path WRITE set_corpus_path)
    Q_PROPERTY(QString model_folder READ model_folder_path WRITE set_model_folder_path)
    // True while the model folder is being described (a screenshot waits for it).
    Q_PROPERTY(bool busy READ busy)
  public:
    explicit LaunchPanel(QWidget* parent = nullptr);

    // The settings the fields give, as a JSON object of TrainConfig keys (only fields that are filled),
    // or a field error. The preset is the key "preset".
    nlohmann::json settings() const;
    // Fills the fields from a run's config.json (or any settings object); unknown keys are ignored.
    void load_settings(const nlohmann::json& config);
    // `fone train` options for a settings object ("model" keys become --hidden etc.).
    static QStringList train_args(const nlohmann::json& settings);
    // A number typed with thousands separators as the window writes them ("6,400") without them; any
    // other text unchanged (validation then names what is wrong with it).
    static QString plain_number(const QString& text);
    // "dec-add fone 51,200 level 3 seed 1": a short label for the queue and the table.
    static QString label_for(const nlohmann::json& settings);
    bool is_valid() const { return valid_; }
    // Sets the CUDA choice enabled or greyed out with the reason (from `fone --version`).
    void set_cuda_available(bool available, const QString& reason);
    // Why runs cannot be launched into the open store (read-only); "" when they can.
    void set_store_problem(const QString& problem);
    // What is wrong, one "Field: why" per line ("" when the settings are valid), and the "Will train" line.
    QString problems_text() const;
    // What is wrong with one field, as shown beside it ("" when nothing is).
    QString field_problem(const QString& key) const;
    QString resolved_text() const;
    // How long a run of these settings will take, in words ("about 4:10 of training, …"; "" when unknown),
    // shown under "Will train" before launching. The window gives the sweep designer's estimate (the store's
    // finished runs of the same shape).
    void set_estimator(std::function<QString(const nlohmann::json& settings)> estimator) {
        estimator_ = std::move(estimator);
        validate();
    }
    // Whether the store has a run of this name (the window's catalog): a new run of a taken name gets
    // NAME-2, which "Will train" says.
    void set_name_taken(std::function<bool(const QString& name)> taken) {
        name_taken_ = std::move(taken);
        validate();
    }
    QLineEdit* field(const QString& key) const { return edits_.value(key); }
    QComboBox* choice(const QString& key) const { return combos_.value(key); }
    // Processes the run trains on (`fone train --nproc`, data-parallel; 1: one process). Not a setting of
    // the run: it changes how it is computed, not what.
    QSpinBox* processes() const { return processes_; }
    QStringList preset_titles() const;
    void apply_preset(const QString& title);
    // The kind of run the form sets up (launch_kinds.h): it chooses the tasks, the methods and the fields
    // shown.
    LaunchKind kind() const;
    void set_kind(LaunchKind kind);
    QComboBox* kind_choice() const { return kind_; }
    QString kind_name() const;  // "arithmetic", "text", "pretrained"
    bool busy() const;
    void set_kind_name(const QString& name);
    QString recipe() const { return recipe_; }  // the preset entry applied last ("" none)
    QString corpus_path() const;
    void set_corpus_path(const QString& path);
    QString model_folder_path() const;
    void set_model_folder_path(const QString& path);
    // The corpus of a text run (`--data`) and the model folder a pretrained run starts from (`--init-from`).
    CorpusPicker* corpus() const { return corpus_; }
    ModelFolderBox* model_folder() const { return folder_; }
    // The `fone` that describes model folders (`fone model inspect`): the window's.
    void set_program(const QString& fone);
    // Whether a field is shown for the kind, task and method chosen (a hidden one sends nothing).
    bool field_shown(const QString& key) const;
    // Processes (`--nproc`) offered only where the build of fone has data-parallel training; why not.
    void set_processes_available(bool available, const QString& why);

  public Q_SLOTS:
    void launch();  // emits launchRequested when the settings are valid
    void validate();

  Q_SIGNALS:
    void launchRequested(const QStringList& train_args, const QString& label);
    void validityChanged(bool valid);
    void settingsChanged();

  private:
    QLineEdit* add_edit(QFormLayout* form, const QString& key, const QString& title, const QString& tip);
    QComboBox* add_combo(QFormLayout* form, const QString& key, const QString& title,
                         const QStringList& items, const QString& tip);
    QWidget* titled(const QString& key, const QString& title);
    void update_model_fields();
    // Builds the Preset menu: the launch recipe's entries, then the text and adapter experiments of
    // `fone reproduce`.
    void fill_presets();
    // The rows of the kinds (kind, model folder, corpus, text settings), after the task row.
    void add_kind_rows(QFormLayout* form);
    // The tasks and methods of the kind (and task), the rows that apply; settings kept where they still do.
    void on_kind_changed();
    void on_task_changed();
    void update_rows();
    void set_choices(QComboBox* combo, const QStringList& items, const QString& keep);
    // The fields' settings alone (settings() adds a preset's settings that have no field).
    nlohmann::json form_settings() const;
    // The resolved values of the empty fields, as "default N" placeholders.
    void update_placeholders(const ResolvedSettings& resolved);
    // Files a resolver's or validator's message, one "key: why" a line, at its field or in `general`.
    void file_problems(const QString& what, QMap<QString, QString>& errors, QString& general) const;
    void show_errors(const QMap<QString, QString>& errors, const QString& general);
    QString name_note(const QString& name) const;

    QMap<QString, QLineEdit*> edits_;
    QMap<QString, QComboBox*> combos_;
    QMap<QString, QString> titles_;  // field key -> its title
    QFormLayout* form_ = nullptr;
    QComboBox* presets_ = nullptr;
    QLabel* problems_ = nullptr;
    QMap<QString, QLabel*> messages_;  // field key -> the line of its problem
    QString problems_text_;
    QString store_problem_;
    QLabel* resolved_ = nullptr;
    std::function<QString(const nlohmann::json&)> estimator_;
    std::function<bool(const QString&)> name_taken_;
    QPushButton* launch_button_ = nullptr;
    QSpinBox* processes_ = nullptr;
    QComboBox* kind_ = nullptr;
    CorpusPicker* corpus_ = nullptr;
    ModelFolderBox* folder_ = nullptr;
    QMap<QString, QWidget*> rows_;      // key -> the field of its row (for showing or hiding the row)
    bool processes_available_ = false;  // until `fone --version` says "--nproc: Gloo"
    nlohmann::json extra_ = nlohmann::json::object();  // a preset's settings without a field here
    QString recipe_;
    bool valid_ = false;
    bool loading_ = false;
};

}  // namespace fone::gui
