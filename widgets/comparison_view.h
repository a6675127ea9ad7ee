// A comparison table like the paper's efficiency table for any selection of runs: training time per
// epoch, test time, test throughput, tokens per number, exact match and digit accuracy (from each run's
// summary.json). Copy as CSV or Markdown.
#pragma once

#include <QList>
#include <QWidget>

#include "run_catalog.h"
#include "theme.h"

class QTableWidget;

namespace fone::gui {

class ComparisonView : public QWidget {
    Q_OBJECT
  public:
    explicit ComparisonView(RunCatalog* catalog, QWidget* parent = nullptr);
    void set_runs(const QList<int>& rows);
    // Each run's name is marked with its colour (run_colours.h) in this theme's series colours.
    void apply_theme(const Theme& theme);
    QString to_csv() const;
    QString to_markdown() const;
    QTableWidget* table() const { return table_; }

  private:
    QStringList header() const;
    QList<QStringList> rows_text() const;
    void mark_colours();
    RunCatalog* catalog_;
    QTableWidget* table_;
    Theme theme_ = light_theme();
};

}  // namespace fone::gui
