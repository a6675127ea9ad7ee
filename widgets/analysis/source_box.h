// The widgets that choose where representations come from: the FoNE encoder, a trained run or a
// pretrained model folder (Hugging Face, docs/pretrained.md), which numbers, and the encoder's digit slots.
#pragma once

#include <QString>
#include <QWidget>

#include "representation_loader.h"
#include "run_picker.h"

class QComboBox;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace fone::gui {

class RunCatalog;

// The widgets that choose a source: encoder, run or model folder, how many numbers from where, and the
// encoder's slots.
class SourceBox : public QWidget {
    Q_OBJECT
  public:
    SourceBox(RunCatalog* catalog, QWidget* parent = nullptr);
    SourceSettings settings() const;
    void set_encoder();
    bool set_run(const QString& name_or_dir);
    // A Hugging Face model folder (config.json, safetensors, tokenizer.json) as the source.
    void set_model(const QString& dir);
    QString model() const;
    void set_count(int count);
    // "encoder", "run" or "model"; setting "run" takes the run picked (if any), as the views' `source`
    // property.
    QString source_name() const;
    void set_source_name(const QString& name);
    RunPicker* runs() const { return runs_; }
    // Token methods (digit, subword, ...) have embeddings only for the numbers that are one token.
    QString limit_note() const;

  Q_SIGNALS:
    void changed();        // any setting
    void sourceChanged();  // encoder <-> run <-> model, or another run or folder (before changed())

  private:
    void update_enabled();
    QComboBox* kind_;
    RunPicker* runs_;
    QLineEdit* model_;
    QPushButton* browse_;
    QSpinBox *count_, *int_digits_, *frac_digits_, *base_;
    QLineEdit *start_, *step_;
};

}  // namespace fone::gui
