#include "settings_compare_view.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "fone/store/run_diff.h"
#include "run_catalog.h"

namespace fone::gui {

namespace {

constexpr int kKeyColumnWidth = 230;
constexpr int kRunColumnWidth = 170;

// The whole value: the tooltip, and what Copy puts on the clipboard.
QString cell(const nlohmann::json& v) {
    return v.is_null() ? QStringLiteral("—") : QString::fromStdString(diff_cell_text(v));
}

// What the table shows: a fraction with six significant digits (0.292359, not 0.29235928839999797);
// whole numbers, text and everything else as they are.
QString shown_cell(const nlohmann::json& v) {
    if (v.is_number_float()) return QString::number(v.get<double>(), 'g', 6);
    return cell(v);
}

}  // namespace

SettingsCompareView::SettingsCompareView(RunCatalog* catalog, QWidget* parent)
    : QWidget(parent), catalog_(catalog) {
    setObjectName("compare-settings");
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    note_ = new QLabel;
    note_->setWordWrap(true);
    auto* copy = new QPushButton("Copy");
    copy->setToolTip("Copy the table (tab-separated: paste into a spreadsheet)");
    bar->addWidget(note_, 1);
    bar->addWidget(copy);
    layout->addLayout(bar);
    tree_ = new QTreeWidget;
    tree_->setObjectName("compare-settings-tree");
    tree_->setAlternatingRowColors(true);
    tree_->setUniformRowHeights(true);
    tree_->setMouseTracking(true);
    tree_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    tree_->header()->setStretchLastSection(false);
    layout->addWidget(tree_, 1);
    // Hovering a run's column emphasises its curve; leaving the runs' columns, none.
    connect(tree_, &QTreeWidget::itemEntered, this, [this](QTreeWidgetItem*, int column) {
        Q_EMIT runHovered(column >= 1 && column <= names_.size() ? names_[column - 1] : QString());
    });
    tree_->viewport()->installEventFilter(this);
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(to_text()); });
    rebuild();
}

void SettingsCompareView::set_runs(const QList<int>& rows) {
    rows_ = rows;
    rebuild();
}

void SettingsCompareView::apply_theme(const Theme& theme) {
    theme_ = theme;
    style_header();
}

void SettingsCompareView::highlight(const QString& name) {
    if (name == highlighted_) return;
    highlighted_ = name;
    style_header();
}

QTreeWidgetItem* SettingsCompareView::add_group(const QString& title, bool expanded) {
    auto* group = new QTreeWidgetItem(tree_, {title});
    group->setFirstColumnSpanned(true);
    QFont bold = group->font(0);
    bold.setBold(true);
    group->setFont(0, bold);
    group->setExpanded(expanded);
    return group;
}

void SettingsCompareView::rebuild() {
    tree_->clear();
    std::vector<DiffRun> runs;
    names_.clear();
    for (int row : rows_) {
        if (row < 0 || row >= catalog_->size() || catalog_->at(row).dir.isEmpty()) continue;
        const RunEntry& e = catalog_->at(row);
        runs.push_back({e.name.toStdString(), e.config, e.summary});
        names_ << e.name;
    }
    tree_->setColumnCount(1 + static_cast<int>(names_.size()));
    tree_->setHeaderLabels(QStringList{"Setting"} + names_);
    tree_->setColumnWidth(0, kKeyColumnWidth);
    for (int c = 1; c <= names_.size(); ++c)
        tree_->setColumnWidth(c, kRunColumnWidth);
    style_header();
    if (names_.size() < 2)
        note_->setText(names_.isEmpty()
                           ? "Select two runs or more in the Runs table: their settings and "
                             "results, the differences first"
                           : "One run selected: select another (Ctrl+click) to see what differs");
    if (names_.isEmpty()) return;
    const RunDiff diff = diff_runs(runs);
    const std::size_t set_diff = diff.differing(DiffSection::setting);
    const std::size_t res_diff = diff.differing(DiffSection::result);
    std::size_t set_total = 0, res_total = 0;
    for (const DiffRow& r : diff.rows)
        (r.section == DiffSection::setting ? set_total : res_total) += 1;
    if (names_.size() >= 2)
        note_->setText(
            QStringLiteral("%1 of %2 settings and %3 of %4 results differ between the %5 runs; the "
                           "equal ones are folded below. Resolved settings: a default and an "
                           "explicit equal value are the same.")
                .arg(set_diff)
                .arg(set_total)
                .arg(res_diff)
                .arg(res_total)
                .arg(names_.size()));
    const bool one = names_.size() == 1;
    QTreeWidgetItem* groups[4] = {
        add_group(QStringLiteral("Settings that differ (%1)").arg(set_diff), true),
        add_group(QStringLiteral("Results that differ (%1)").arg(res_diff), true),
        add_group(QStringLiteral("Equal settings (%1)").arg(set_total - set_diff), one),
        add_group(QStringLiteral("Equal results (%1)").arg(res_total - res_diff), false)};
    for (const DiffRow& r : diff.rows) {
        const int g = (r.section == DiffSection::setting ? 0 : 1) + (r.differs ? 0 : 2);
        QStringList shown{QString::fromStdString(r.key)}, whole{shown[0]};
        for (const auto& v : r.values) {
            shown << shown_cell(v);
            whole << cell(v);
        }
        auto* item = new QTreeWidgetItem(groups[g], shown);
        for (int c = 0; c < whole.size(); ++c) {
            item->setToolTip(c, whole[c]);
            item->setData(c, Qt::UserRole, whole[c]);
        }
    }
    // The keys whole where the view allows it (final.digit_accuracy_by_position.-1 is 260 px).
    tree_->resizeColumnToContents(0);
    tree_->setColumnWidth(0, std::clamp(tree_->columnWidth(0), kKeyColumnWidth,
                                        std::max(kKeyColumnWidth, tree_->viewport()->width() * 2 / 5)));
}

void SettingsCompareView::style_header() {
    // Each run's column headed in its own colour, its curve's (run_colours.h); the hovered run's in bold.
    QTreeWidgetItem* header = tree_->headerItem();
    for (int i = 0; i < names_.size(); ++i) {
        const int slot = catalog_->colour_slot(names_[i]);
        header->setText(i + 1, "■ " + names_[i]);
        header->setForeground(i + 1, theme_.series(slot >= 0 ? slot : i));
        QFont f = tree_->font();
        f.setBold(names_[i] == highlighted_);
        header->setFont(i + 1, f);
        header->setToolTip(i + 1,
                           names_[i] + ": its curve has this colour; hover its column to emphasise it");
    }
}

bool SettingsCompareView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == tree_->viewport() && event->type() == QEvent::Leave) Q_EMIT runHovered(QString());
    return QWidget::eventFilter(watched, event);
}

QStringList SettingsCompareView::group_titles() const {
    QStringList titles;
    for (int i = 0; i < tree_->topLevelItemCount(); ++i)
        titles << tree_->topLevelItem(i)->text(0);
    return titles;
}

QStringList SettingsCompareView::group_rows(int group) const {
    QStringList rows;
    if (group < 0 || group >= tree_->topLevelItemCount()) return rows;
    const QTreeWidgetItem* g = tree_->topLevelItem(group);
    for (int i = 0; i < g->childCount(); ++i) {
        QStringList values;
        for (int c = 1; c < tree_->columnCount(); ++c)
            values << g->child(i)->text(c);
        rows << g->child(i)->text(0) + ": " + values.join(" | ");
    }
    return rows;
}

QString SettingsCompareView::to_text() const {
    QString out = QStringList(QStringList{"setting"} + names_).join('\t') + "\n";
    for (int g = 0; g < tree_->topLevelItemCount(); ++g) {
        const QTreeWidgetItem* group = tree_->topLevelItem(g);
        for (int i = 0; i < group->childCount(); ++i) {
            QStringList cells;
            for (int c = 0; c < tree_->columnCount(); ++c)
                cells << group->child(i)->data(c, Qt::UserRole).toString();  // whole, not as shown
            out += cells.join('\t') + "\n";
        }
    }
    return out;
}

}  // namespace fone::gui
