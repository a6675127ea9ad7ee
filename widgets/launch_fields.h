// Two fields of the Launch panel that name a place rather than a number, each with a button to choose it
// and a line that says what was found there (info(): the panel shows it under the field, the form's whole
// width), so a run is not launched on the wrong thing:
//  - CorpusPicker: the text a language model reads (`fone train --data`): the bundled Factbook sample, a
//    text or JSONL file, or a folder (the Factbook's JSON files, or train/val/test.jsonl).
//  - ModelFolderBox: a Hugging Face model folder to start from (`--init-from`), described by a
//    `fone model inspect DIR` child (family, shape, parameters, tokenizer, number pieces): the window never
//    opens a model itself.
#pragma once

#include <QJsonObject>
#include <QWidget>

class QLabel;
class QLineEdit;
class QProcess;
class QTimer;
class QToolButton;

namespace fone::gui {

class CorpusPicker : public QWidget {
    Q_OBJECT
  public:
    explicit CorpusPicker(QWidget* parent = nullptr);
    QString path() const;
    void set_path(const QString& path);
    // What the path holds, in words ("a folder of 5 Factbook files", "a file of 48 lines"); why it cannot
    // be read when it cannot (problem()).
    QString description() const;
    QString problem() const { return problem_; }
    QLineEdit* edit() const { return edit_; }
    // The line that says what was found (the panel puts it on a row of its own, the form's whole width).
    QLabel* info() const { return info_; }

  Q_SIGNALS:
    void changed();

  private:
    void describe();

    QLineEdit* edit_;
    QToolButton* choose_;
    QLabel* info_;
    QString problem_;
};

class ModelFolderBox : public QWidget {
    Q_OBJECT
  public:
    explicit ModelFolderBox(QWidget* parent = nullptr);
    ~ModelFolderBox() override;
    QString path() const;
    void set_path(const QString& path);
    void set_program(const QString& fone);
    // `fone model inspect`'s answer for the folder ({} before it, or when it failed).
    const QJsonObject& found() const { return found_; }
    // The line under the field: family, shape, parameters, tokenizer, number pieces.
    QString description() const;
    // Why the folder cannot be a run's start ("" while asking, or when it can).
    QString problem() const { return problem_; }
    bool asking() const;
    QLineEdit* edit() const { return edit_; }
    QLabel* info() const { return info_; }

  Q_SIGNALS:
    void changed();  // the path, or what was found there

  private:
    void inspect();
    void on_inspected(int exit_code);

    QLineEdit* edit_;
    QToolButton* choose_;
    QLabel* info_;
    QString program_;
    QProcess* process_ = nullptr;
    QTimer* debounce_;
    QJsonObject found_;
    QString problem_, asked_;
};

}  // namespace fone::gui
