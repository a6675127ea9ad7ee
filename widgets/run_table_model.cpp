#include "run_table_model.h"

#include <QApplication>
#include <QFont>
#include <QMouseEvent>
#include <QPainter>
#include <QStyleOptionButton>
#include <QStyleOptionProgressBar>
#include <cmath>

namespace fone::gui {

namespace {

const char* const kHeaders[RunTableModel::kColumnCount] = {
    "Run",         "Status",           "Progress",       "Task",   "Method",  "Model",
    "Parameters",  "Training set",     "Seed",           "Epochs", "LR",      "Batch",
    "Exact match", "Best exact match", "Digit accuracy", "Time",   "Message", "Tags"};

double or_missing(double v) {
    return v < 0 ? -1e300 : v;
}

}  // namespace

RunTableModel::RunTableModel(RunCatalog* catalog, QObject* parent)
    : QAbstractTableModel(parent), catalog_(catalog) {
    connect(catalog, &RunCatalog::rowsAboutToBeInserted, this,
            [this](int first, int last) { beginInsertRows({}, first, last); });
    connect(catalog, &RunCatalog::rowsInserted, this, [this](int, int) { endInsertRows(); });
    connect(catalog, &RunCatalog::rowChanged, this,
            [this](int row) { Q_EMIT dataChanged(index(row, 0), index(row, kColumnCount - 1)); });
    connect(catalog, &RunCatalog::coloursChanged, this, [this] {
        if (rowCount() > 0)
            Q_EMIT dataChanged(index(0, kName), index(rowCount() - 1, kName), {Qt::DecorationRole});
    });
}

void RunTableModel::set_theme(const Theme& theme) {
    theme_ = theme;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, kName), index(rowCount() - 1, kName), {Qt::DecorationRole});
}

int RunTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : catalog_->size();
}
int RunTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : kColumnCount;
}

QVariant RunTableModel::display(const RunEntry& e, int column) const {
    switch (column) {
        case kName:
            return e.display_name();
        case kStatus:
            return e.status;
        case kProgress:
            return e.progress() < 0 ? QStringLiteral("—")
                                    : QString::number(std::lround(100 * e.progress())) + "%";
        case kTask:
            return e.task;
        case kMethod:
            return e.method;
        case kShape:
            return e.shape;
        case kParams:
            return format_count(e.params);
        case kTrainSize:
            return format_count(e.train_size);
        case kSeed:
            return e.config.empty() ? QVariant() : QVariant(static_cast<qlonglong>(e.seed));
        case kEpochs:
            return e.epochs > 0 ? QVariant(e.epochs) : QVariant();
        case kLr:
            return e.lr > 0 ? QVariant(QString::number(e.lr, 'g', 3)) : QVariant();
        case kBatch:
            return e.batch > 0 ? QVariant(e.batch) : QVariant();
        case kExactMatch:
            return format_percent(e.exact_match);
        case kBestExactMatch:
            return format_percent(e.best_exact_match);
        case kDigitAccuracy:
            return format_percent(e.digit_accuracy);
        case kElapsed:
            return format_seconds(e.elapsed_seconds > 0 ? e.elapsed_seconds : -1);
        case kMessage:
            return e.message.section('\n', 0, 0);
        case kTags:
            return e.tags.join(' ');
    }
    return {};
}

QVariant RunTableModel::sort_value(const RunEntry& e, int column) const {
    switch (column) {
        case kProgress:
            return e.progress();
        case kParams:
            return e.params;
        case kTrainSize:
            return e.train_size;
        case kSeed:
            return e.seed;
        case kEpochs:
            return e.epochs;
        case kLr:
            return e.lr;
        case kBatch:
            return e.batch;
        case kExactMatch:
            return or_missing(e.exact_match);
        case kBestExactMatch:
            return or_missing(e.best_exact_match);
        case kDigitAccuracy:
            return or_missing(e.digit_accuracy);
        case kElapsed:
            return e.elapsed_seconds;
        default:
            return display(e, column);
    }
}

QString RunTableModel::csv_value(const RunEntry& e, int column) const {
    auto number = [](double v, double scale = 1) {
        return v < 0 ? QString() : QString::number(scale * v, 'g', 12);
    };
    switch (column) {
        case kProgress:
            return number(e.progress(), 100);
        case kParams:
            return e.params > 0 ? number(e.params) : QString();
        case kTrainSize:
            return e.train_size > 0 ? number(e.train_size) : QString();
        case kLr:
            return e.lr > 0 ? number(e.lr) : QString();
        case kExactMatch:
            return number(e.exact_match, 100);
        case kBestExactMatch:
            return number(e.best_exact_match, 100);
        case kDigitAccuracy:
            return number(e.digit_accuracy, 100);
        case kElapsed:
            return e.elapsed_seconds > 0 ? QString::number(e.elapsed_seconds, 'f', 1) : QString();
        default:
            return display(e, column).toString();
    }
}

QVariant RunTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= catalog_->size()) return {};
    const RunEntry& e = catalog_->at(index.row());
    const int column = index.column();
    switch (role) {
        case Qt::DisplayRole:
            return display(e, column);
        case kSortRole:
            return sort_value(e, column);
        case kCsvRole:
            return csv_value(e, column);
        case kCatalogRowRole:
            return index.row();
        case kStatusRole:
            return e.status;
        case kProgressRole:
            return e.progress();
        case kEtaRole:
            return e.status == "running" ? e.eta_seconds : -1.0;
        case Qt::ToolTipRole:
            if (column == kMessage || column == kStatus) return e.message.isEmpty() ? QVariant() : e.message;
            if (column == kName) return e.dir.isEmpty() ? e.label : e.dir;
            if (column == kTags && !e.notes.isEmpty()) return e.notes.left(500);
            return {};
        case Qt::ForegroundRole:
            if (column == kStatus) return status_color(e.status);
            return {};
        case Qt::DecorationRole:
            // A selected run's name carries its colour, the one its curve and columns have in every view.
            if (column == kName && catalog_->colour_slot(e.name) >= 0)
                return colour_swatch(theme_.series(catalog_->colour_slot(e.name)));
            return {};
        case Qt::FontRole:
            if (!highlighted_.isEmpty() && e.name == highlighted_) {
                QFont f;
                f.setBold(true);
                return f;
            }
            return {};
        case Qt::TextAlignmentRole:
            if (column >= kParams && column <= kElapsed)
                return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
            return {};
    }
    return {};
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= kColumnCount) return {};
    if (role == Qt::DisplayRole) return QString::fromUtf8(kHeaders[section]);
    if (role == kCsvRole) {
        const QString title = QString::fromUtf8(kHeaders[section]);
        if (section == kProgress || section == kExactMatch || section == kBestExactMatch ||
            section == kDigitAccuracy)
            return title + " (%)";
        return section == kElapsed ? title + " (s)" : title;
    }
    if (role == Qt::ToolTipRole) return column_tooltip(section);
    return {};
}

QString RunTableModel::column_tooltip(int column) {
    switch (column) {
        case kMethod:
            return "How numbers enter the model. FoNE: each number is ONE token whose embedding is "
                   "[cos 2πx/T, sin 2πx/T] for the periods T = 10, 100, ... (one pair per digit).";
        case kShape:
            return "Model size: the paper's size level (1..6: hidden 64·level, level layers) or a custom "
                   "shape.";
        case kParams:
            return "Trainable parameters of the model.";
        case kTrainSize:
            return "Number of training examples.";
        case kExactMatch:
            return "Exact match on the test split at the last evaluation: the whole answer right.";
        case kBestExactMatch:
            return "Best test exact match over the run.";
        case kDigitAccuracy:
            return "Share of answer digits that are right (all digit slots).";
        case kProgress:
            return "Optimiser steps done of all steps; the time left is estimated by the run.";
        case kStatus:
            return "interrupted: the run's process is gone without ending it (resume continues it from its "
                   "last checkpoint).";
        case kTags:
            return "The run's tags (the Notes pane, or fone runs tag RUN +name); filter with tag:name.";
        default:
            return {};
    }
}

QColor RunTableModel::status_color(const QString& status) {
    if (status == "finished") return QColor(0x2e, 0x9e, 0x44);
    if (status == "running" || status == "starting") return QColor(0x1f, 0x77, 0xd4);
    if (status == "failed" || status == "broken") return QColor(0xd6, 0x27, 0x28);
    if (status == "interrupted" || status == "stopped") return QColor(0xe0, 0x8a, 0x00);
    return QColor(0x80, 0x80, 0x80);  // queued
}

void RunTableModel::set_highlighted(const QString& name) {
    if (name == highlighted_) return;
    const int old_row = catalog_->row_of(highlighted_);
    highlighted_ = name;
    for (int row : {old_row, catalog_->row_of(name)})
        if (row >= 0) Q_EMIT dataChanged(index(row, 0), index(row, kColumnCount - 1), {Qt::FontRole});
}

RunFilterProxy::RunFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(RunTableModel::kSortRole);
    setDynamicSortFilter(false);  // live updates must not reshuffle rows under the mouse
}

void RunFilterProxy::set_filter_text(const QString& text) {
    words_ = text.simplified().toLower().split(' ', Qt::SkipEmptyParts);
    invalidateFilter();
}

bool RunFilterProxy::filterAcceptsRow(int source_row, const QModelIndex&) const {
    const auto* model = static_cast<const RunTableModel*>(sourceModel());
    const RunEntry& e = model->catalog()->at(source_row);
    if (e.status == kRetired) return false;
    if (words_.isEmpty()) return true;
    for (const QString& word : words_) {
        const QString key = word.section(':', 0, 0), value = word.section(':', 1);
        bool hit = false;
        if (word.contains(':') && !value.isEmpty()) {
            const QString field = key == "status"   ? e.status
                                  : key == "task"   ? e.task
                                  : key == "method" ? e.method
                                  : key == "model"  ? e.shape
                                                    : QString();
            hit = field.toLower() == value;
            if (key == "tag")
                for (const QString& tag : e.tags)
                    hit = hit || tag.toLower() == value;
        } else {
            for (const QString& field : {e.display_name(), e.status, e.task, e.method, e.shape})
                if (field.toLower().contains(word)) hit = true;
            for (const QString& tag : e.tags)
                if (tag.toLower().contains(word)) hit = true;
        }
        if (!hit) return false;
    }
    return true;
}

QString RunStatusDelegate::button_text(const QString& status) {
    if (status == "interrupted" || status == "stopped") return QStringLiteral("Resume");
    if (status == "running" || status == "queued" || status == "starting") return QStringLiteral("Stop");
    return {};
}

QRect RunStatusDelegate::button_rect(const QRect& cell) {
    const int w = std::min(64, cell.width() / 2);
    return QRect(cell.right() - w - 1, cell.top() + 2, w, cell.height() - 4);
}

void RunStatusDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                              const QModelIndex& index) const {
    const int column = index.column();
    if (column == RunTableModel::kProgress) {
        QStyleOptionViewItem background = option;
        initStyleOption(&background, index);
        background.text.clear();
        QApplication::style()->drawControl(QStyle::CE_ItemViewItem, &background, painter);
        const double progress = index.data(RunTableModel::kProgressRole).toDouble();
        if (progress < 0) {  // a broken run: no bar
            QStyledItemDelegate::paint(painter, option, index);
            return;
        }
        QStyleOptionProgressBar bar;
        bar.rect = option.rect.adjusted(2, 3, -2, -3);
        bar.minimum = 0;
        bar.maximum = 1000;
        bar.progress = static_cast<int>(std::lround(1000 * progress));
        const double eta = index.data(RunTableModel::kEtaRole).toDouble();
        bar.text =
            QString::number(bar.progress / 10) + "%" + (eta >= 0 ? "  ETA " + format_seconds(eta) : "");
        bar.textVisible = true;
        bar.palette = option.palette;
        bar.state = option.state | QStyle::State_Horizontal;
        QApplication::style()->drawControl(QStyle::CE_ProgressBar, &bar, painter);
        return;
    }
    QStyledItemDelegate::paint(painter, option, index);
    if (column != RunTableModel::kStatus) return;
    const QString text = button_text(index.data(RunTableModel::kStatusRole).toString());
    if (text.isEmpty()) return;
    QStyleOptionButton button;
    button.rect = button_rect(option.rect);
    button.text = text;
    button.state = QStyle::State_Enabled | QStyle::State_Raised;
    button.palette = option.palette;
    QApplication::style()->drawControl(QStyle::CE_PushButton, &button, painter);
}

bool RunStatusDelegate::editorEvent(QEvent* event, QAbstractItemModel* model,
                                    const QStyleOptionViewItem& option, const QModelIndex& index) {
    if (index.column() == RunTableModel::kStatus && event->type() == QEvent::MouseButtonRelease) {
        const auto* mouse = static_cast<QMouseEvent*>(event);
        const QString status = index.data(RunTableModel::kStatusRole).toString();
        const QString text = button_text(status);
        if (!text.isEmpty() && button_rect(option.rect).contains(mouse->position().toPoint())) {
            const int row = index.data(RunTableModel::kCatalogRowRole).toInt();
            if (text == "Resume")
                Q_EMIT resumeClicked(row);
            else
                Q_EMIT stopClicked(row);
            return true;
        }
    }
    return QStyledItemDelegate::editorEvent(event, model, option, index);
}

}  // namespace fone::gui
