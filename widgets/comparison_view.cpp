#include "comparison_view.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cstdlib>

#include "plot_panel.h"

namespace fone::gui {

using nlohmann::json;

namespace {

double final_number(const RunEntry& e, const char* key) {
    const json& s = e.summary;
    if (!s.is_object()) return -1;
    const auto f = s.find("final");
    if (f == s.end() || !f->is_object()) return -1;
    const auto v = f->find(key);
    return v != f->end() && v->is_number() ? v->get<double>() : -1;
}

QString seconds_text(double s) {
    return s < 0 ? QString() : QString::number(s, 'g', 3);
}

}  // namespace

ComparisonView::ComparisonView(RunCatalog* catalog, QWidget* parent) : QWidget(parent), catalog_(catalog) {
    auto* layout = new QVBoxLayout(this);
    auto* buttons = new QHBoxLayout;
    auto* csv = new QPushButton("Copy as CSV");
    auto* md = new QPushButton("Copy as Markdown");
    buttons->addWidget(
        new QLabel(
            "The runs selected in the table, from their summaries (like the paper's efficiency table)"),
        1);
    buttons->addWidget(csv);
    buttons->addWidget(md);
    layout->addLayout(buttons);
    table_ = new QTableWidget;
    table_->setColumnCount(static_cast<int>(header().size()));
    // Shown in two lines where a header is longer than its numbers (the ten columns fit 1280 px then);
    // copied in one.
    QStringList shown = header();
    for (QString& h : shown) {
        qsizetype middle_space = -1;  // the space nearest the middle
        for (qsizetype i = 0; i < h.size(); ++i)
            if (h[i] == ' ' &&
                (middle_space < 0 || std::abs(2 * i - h.size()) < std::abs(2 * middle_space - h.size())))
                middle_space = i;
        if (h.size() > 9 && middle_space > 0) h[middle_space] = '\n';
    }
    table_->setHorizontalHeaderLabels(shown);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->setAlternatingRowColors(true);
    table_->setSortingEnabled(true);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // The results next to the run's name, before the costs: at 1280 px the last column is the one that
    // scrolls out of sight. Only the view's order: the copies keep the table's (header()).
    table_->horizontalHeader()->moveSection(8, 4);
    table_->horizontalHeader()->moveSection(9, 5);
    table_->horizontalHeaderItem(4)->setToolTip("Training time divided by the epochs run");
    table_->horizontalHeaderItem(6)->setToolTip(
        "Tokens each number takes: 1 for FoNE, one per digit for digit "
        "tokenizers");
    layout->addWidget(table_, 1);
    connect(csv, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(to_csv()); });
    connect(md, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(to_markdown()); });
}

QStringList ComparisonView::header() const {
    return {"Run",
            "Method",
            "Task",
            "Parameters",
            "Train time / epoch (s)",
            "Test time (s)",
            "Tokens / number",
            "Test examples/s",
            "Exact match",
            "Digit accuracy"};
}

void ComparisonView::set_runs(const QList<int>& rows) {
    QList<QStringList> text;
    for (int row : rows) {
        if (row < 0 || row >= catalog_->size()) continue;
        const RunEntry& e = catalog_->at(row);
        if (!e.summary.is_object() || e.summary.empty()) continue;
        const double epochs = std::max(1.0, json_number(e.summary, "epoch", 1.0));
        const double train_seconds = json_number(e.summary, "train_seconds", -1.0);
        const double tokens = final_number(e, "tokens_per_number");
        const double throughput = final_number(e, "eval_examples_per_second");
        text << QStringList{e.name,
                            e.method,
                            e.task,
                            format_count(e.params),
                            train_seconds < 0 ? QString() : seconds_text(train_seconds / epochs),
                            seconds_text(final_number(e, "eval_seconds")),
                            tokens < 0 ? QString() : QString::number(tokens, 'g', 3),
                            throughput < 0 ? QString() : format_count(throughput),
                            format_percent(final_number(e, "exact_match")),
                            format_percent(final_number(e, "digit_accuracy"))};
    }
    table_->setSortingEnabled(false);
    table_->setRowCount(static_cast<int>(text.size()));
    for (int r = 0; r < text.size(); ++r)
        for (int c = 0; c < text[r].size(); ++c) {
            auto* item = new QTableWidgetItem(text[r][c]);
            if (c >= 3) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table_->setItem(r, c, item);
        }
    mark_colours();
    table_->setSortingEnabled(true);
}

void ComparisonView::apply_theme(const Theme& theme) {
    theme_ = theme;
    mark_colours();
}

void ComparisonView::mark_colours() {
    for (int r = 0; r < table_->rowCount(); ++r) {
        QTableWidgetItem* name = table_->item(r, 0);
        if (!name) continue;
        const int slot = catalog_->colour_slot(name->text());
        name->setData(Qt::DecorationRole,
                      slot >= 0 ? QVariant(colour_swatch(theme_.series(slot))) : QVariant());
    }
}

QList<QStringList> ComparisonView::rows_text() const {
    QList<QStringList> out;
    for (int r = 0; r < table_->rowCount(); ++r) {
        QStringList row;
        for (int c = 0; c < table_->columnCount(); ++c)
            row << (table_->item(r, c) ? table_->item(r, c)->text() : "");
        out << row;
    }
    return out;
}

QString ComparisonView::to_csv() const {
    auto line = [](const QStringList& cells) {
        QStringList quoted;
        for (const QString& c : cells)
            quoted << csv_field(c);
        return quoted.join(',') + "\n";
    };
    QString out = line(header());
    for (const QStringList& row : rows_text())
        out += line(row);
    return out;
}

QString ComparisonView::to_markdown() const {
    auto line = [](const QStringList& cells) {
        QStringList escaped;
        for (const QString& c : cells)
            escaped << QString(c).replace('|', "\\|");
        return "| " + escaped.join(" | ") + " |\n";
    };
    QString out = line(header());
    QStringList rule;
    for (int c = 0; c < header().size(); ++c)
        rule << (c >= 3 ? "---:" : "---");
    out += "|" + rule.join("|") + "|\n";
    for (const QStringList& row : rows_text())
        out += line(row);
    return out;
}

}  // namespace fone::gui
