// "Compare settings": what differs between the runs selected in the table (W&B's "diff only", MLflow's
// compare). One column per run, headed in its curve's colour; the settings and results that differ first,
// the equal ones folded below them. The rows come from the store's own diff (fone/store/run_diff.h: resolved
// settings, so a default and an explicit equal value are the same), the one `fone runs diff` prints.
// Linked to the curves: hovering a run's column emphasises its curve, and the curve hovered in the plot
// marks its column.
#pragma once

#include <QList>
#include <QWidget>

#include "theme.h"

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace fone::gui {

class RunCatalog;

class SettingsCompareView : public QWidget {
    Q_OBJECT
  public:
    explicit SettingsCompareView(RunCatalog* catalog, QWidget* parent = nullptr);
    // Catalog rows; each run's column is headed in its colour (RunCatalog::colour_slot, as its curve).
    void set_runs(const QList<int>& rows);
    void apply_theme(const Theme& theme);
    // Marks the column of the run whose curve is hovered ("" : none).
    void highlight(const QString& name);

    QTreeWidget* tree() const { return tree_; }
    // The groups' titles as shown ("Settings that differ (3)", ...), for tests and screenshots.
    QStringList group_titles() const;
    // The rows of a group, each "key: value | value ...".
    QStringList group_rows(int group) const;
    // The table as text (tab-separated), what Copy puts on the clipboard.
    QString to_text() const;

  Q_SIGNALS:
    void runHovered(const QString& name);  // "" when the mouse leaves the runs' columns

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void rebuild();
    QTreeWidgetItem* add_group(const QString& title, bool expanded);
    void style_header();

    RunCatalog* catalog_;
    QList<int> rows_;
    QStringList names_;
    QString highlighted_;
    Theme theme_ = light_theme();
    QLabel* note_;
    QTreeWidget* tree_;
};

}  // namespace fone::gui
