// The run table: an item model over the RunCatalog (one row per run, nothing copied, so 2,000 runs cost
// nothing until painted), a filter/sort proxy, and a delegate that paints the status with its colour, a
// progress bar with the ETA, and a Resume / Stop button inside the status cell.
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QStyledItemDelegate>

#include "run_catalog.h"
#include "theme.h"

namespace fone::gui {

class RunTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        kName,
        kStatus,
        kProgress,
        kTask,
        kMethod,
        kShape,
        kParams,
        kTrainSize,
        kSeed,
        kEpochs,
        kLr,
        kBatch,
        kExactMatch,
        kBestExactMatch,
        kDigitAccuracy,
        kElapsed,
        kMessage,
        kTags,  // added after the others, so that saved column layouts keep their meaning; shown after Run
        kColumnCount
    };
    // Roles beyond Qt's: the value to sort by, the catalog row, the run's state for the delegate, and the
    // cell as CSV wants it (numbers as numbers: 493696, 40.5; percentages and seconds in the header).
    enum Role {
        kSortRole = Qt::UserRole + 1,
        kCatalogRowRole,
        kStatusRole,
        kProgressRole,
        kEtaRole,
        kCsvRole
    };

    explicit RunTableModel(RunCatalog* catalog, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // The run drawn emphasised (hovered in a plot); "" for none.
    void set_highlighted(const QString& name);
    const QString& highlighted() const { return highlighted_; }
    RunCatalog* catalog() const { return catalog_; }
    // The theme whose series colours mark the selected runs' names (the swatch of their curve's colour).
    void set_theme(const Theme& theme);

    static QColor status_color(const QString& status);
    static QString column_tooltip(int column);

  private:
    QVariant display(const RunEntry& e, int column) const;
    QVariant sort_value(const RunEntry& e, int column) const;
    QString csv_value(const RunEntry& e, int column) const;
    RunCatalog* catalog_;
    QString highlighted_;
    Theme theme_ = light_theme();
};

// Filter: every word of the text must appear in the name, status, task, method, shape or a tag
// (case-insensitive); "status:running" style terms match one column, "tag:baseline" one of the run's tags.
class RunFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
  public:
    explicit RunFilterProxy(QObject* parent = nullptr);
    void set_filter_text(const QString& text);
    void refilter() { invalidateFilter(); }

  protected:
    bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

  private:
    QStringList words_;
};

// Paints status (coloured text + a Resume button for interrupted/stopped runs, Stop for running ones)
// and the progress bar with the ETA. Clicking the button emits resumeClicked / stopClicked.
class RunStatusDelegate : public QStyledItemDelegate {
    Q_OBJECT
  public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    bool editorEvent(QEvent* event, QAbstractItemModel* model, const QStyleOptionViewItem& option,
                     const QModelIndex& index) override;

  Q_SIGNALS:
    void resumeClicked(int catalog_row);
    void stopClicked(int catalog_row);

  private:
    static QRect button_rect(const QRect& cell);
    static QString button_text(const QString& status);
};

}  // namespace fone::gui
