#include "plot_panel.h"

#include <qcustomplot.h>
#include <QAbstractButton>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontInfo>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTextDocument>
#include <QToolTip>
#include <QVBoxLayout>

#include <QMap>
#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fone::gui {

namespace {
// A plot that has no size yet (never shown) is exported at this size.
constexpr int kExportWidth = 1200, kExportHeight = 750;
constexpr double kMinPngWidth = 1600;  // a small plot's PNG is scaled up to at least this many pixels
constexpr double kHoverPixels = 14;    // how far from a point the mouse may be

QString temp_path_for(const QString& path) {
    const QFileInfo info(path);
    return info.absolutePath() + "/." + info.completeBaseName() + ".tmp-" +
           QString::number(QCoreApplication::applicationPid()) + "." + info.suffix();
}

bool replace_file(const QString& tmp, const QString& path, QString* error) {
    if (::rename(tmp.toLocal8Bit().constData(), path.toLocal8Bit().constData()) == 0) return true;
    QFile::remove(tmp);
    if (error) *error = "cannot write " + path;
    return false;
}
}  // namespace

QString csv_field(const QString& s) {
    if (!s.contains(',') && !s.contains('"') && !s.contains('\n')) return s;
    return '"' + QString(s).replace("\"", "\"\"") + '"';
}

bool save_text(const QString& path, const QString& text, QString* error) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0 || !file.commit()) {
        if (error) *error = "cannot write " + path + ": " + file.errorString();
        return false;
    }
    return true;
}

const QVector<FigureSize>& figure_sizes() {
    static const QVector<FigureSize> sizes{{"As on screen", {}},
                                           {"Report figure, 960 × 480 (fone reproduce)", {960, 480}},
                                           {"Analysis figure, 1200 × 750 (fone analyse)", {1200, 750}},
                                           {"Square, 900 × 900", {900, 900}},
                                           {"Slide, 1600 × 900", {1600, 900}}};
    return sizes;
}

bool save_plot(QCustomPlot* plot, const QString& path, QString* error, QSize figure) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    const QString tmp = temp_path_for(path);
    plot->deselectAll();
    // The picture on screen: its size (so circles stay round and texts where they are), more pixels. A
    // chosen figure size: laid out at that size (QCustomPlot places axes, ticks and legend anew), so a
    // figure from a wide, short dock is not a wide, short figure.
    const bool sized =
        plot->width() >= 50 && plot->height() >= 50 && plot->testAttribute(Qt::WA_WState_Visible);
    const bool chosen = figure.width() >= 50 && figure.height() >= 50;
    const int width = chosen ? figure.width() : sized ? plot->width() : kExportWidth;
    const int height = chosen ? figure.height() : sized ? plot->height() : kExportHeight;
    bool ok = false;
    if (suffix == "png") {
        ok = plot->savePng(tmp, width, height, chosen ? 1.0 : std::max(2.0, kMinPngWidth / width));
    } else if (suffix == "pdf") {
        ok = plot->savePdf(tmp, width, height, QCP::epNoCosmetic);
    } else if (suffix == "svg") {
        QSvgGenerator svg;
        svg.setFileName(tmp);
        svg.setSize(QSize(width, height));
        svg.setViewBox(QRect(0, 0, width, height));
        svg.setTitle("FoNE Workbench plot");
        QCPPainter painter;
        ok = painter.begin(&svg);
        if (ok) {
            plot->toPainter(&painter, width, height);
            ok = painter.end();
        }
    } else {
        if (error) *error = "unknown file type '" + suffix + "' (use .png, .svg, .pdf or .csv)";
        return false;
    }
    if (!ok) {
        QFile::remove(tmp);
        if (error) *error = "cannot write " + path;
        return false;
    }
    return replace_file(tmp, path, error);
}

QString export_base_name(QCustomPlot* plot) {
    QString title;
    for (int i = 0; i < plot->plotLayout()->elementCount() && title.isEmpty(); ++i)
        if (auto* text = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i)))
            title = text->text();
    // A figure without a title (the training plots): what it draws against what, else its view's name.
    if (title.isEmpty() && !plot->yAxis->label().isEmpty())
        title = plot->yAxis->label() +
                (plot->xAxis->label().isEmpty() ? QString() : " vs " + plot->xAxis->label());
    for (QWidget* up = plot; up && title.isEmpty(); up = up->parentWidget())
        if (auto* dock = qobject_cast<QDockWidget*>(up)) title = dock->windowTitle();
    QString name = title.toLower().replace(QRegularExpression("[^a-z0-9.]+"), "-");
    name = name.left(60).replace(QRegularExpression("^[-.]+|[-.]+$"), QString());
    return name.isEmpty() ? QStringLiteral("fone-figure") : name;
}

QString export_path(const QString& typed, const QString& filter) {
    if (typed.isEmpty() || !QFileInfo(typed).suffix().isEmpty()) return typed;
    const QRegularExpressionMatch m = QRegularExpression(R"(\*\.(\w+))").match(filter);
    return m.hasMatch() ? typed + "." + m.captured(1) : typed;
}

QString plot_data_csv(QCustomPlot* plot, const QString& x_name, const QString& y_name) {
    QString out = "series," + csv_field(x_name) + "," + csv_field(y_name) + "\n";
    for (int g = 0; g < plot->graphCount(); ++g) {
        QCPGraph* graph = plot->graph(g);
        if (!graph->visible()) continue;
        const QString name = csv_field(graph->name());
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
            out += name + "," + QString::number(it->key, 'g', 10) + "," +
                   QString::number(it->value, 'g', 10) + "\n";
    }
    return out;
}

namespace {
void keep_legible(QCustomPlot* plot) {
    // Rows of panels share the plot's height: each row's shortfall counts once.
    QMap<int, int> shortfall_by_row;
    for (QCPAxisRect* rect : plot->axisRects())
        if (rect->visible() && rect->rect().height() < kMinPlotRectHeight)
            shortfall_by_row[rect->rect().top()] = std::max(shortfall_by_row.value(rect->rect().top()),
                                                            kMinPlotRectHeight - rect->rect().height());
    int more = 0;
    for (int s : shortfall_by_row)
        more += s;
    if (more <= 0 || plot->height() <= 0) return;
    constexpr int kTallest = 4000;  // a figure never asks for more than this, whatever it draws
    const int wanted = std::min(kTallest, plot->height() + more + 2);
    if (wanted > plot->minimumHeight()) plot->setMinimumHeight(wanted);
}
}  // namespace

PlotPanel::PlotPanel(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot), controls_(new QHBoxLayout) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls_);
    layout->addWidget(plot_, 1);
    plot_->setNoAntialiasingOnDrag(true);
    // The legibility rule's height: a short dock scrolls rather than squeeze the figure unreadable.
    plot_->setMinimumSize(kMinPlotRectWidth + 60, kMinPlotWidgetHeight);
    // The legibility rule kept: a plot whose data rectangles came out lower than kMinPlotRectHeight
    // (stacked panels, a tall legend, a title) asks for that much more height, so its view scrolls instead.
    connect(plot_, &QCustomPlot::afterReplot, this, [this] { keep_legible(plot_); });
    throttle_.setInterval(100);
    throttle_.setSingleShot(true);
    connect(&throttle_, &QTimer::timeout, this, [this] {
        pending_ = false;
        before_replot();
        plot_->replot(QCustomPlot::rpQueuedReplot);
    });
}

void PlotPanel::request_replot() {
    if (pending_) return;
    pending_ = true;
    throttle_.start();
}

double PlotPanel::last_replot_ms() const {
    return plot_->replotTime();
}

void PlotPanel::apply_theme(const Theme& theme) {
    theme_ = theme;
    if (redraw_)
        redraw_figure(theme.name == "dark");
    else
        apply_theme_to_plot(theme, plot_);
    plot_->replot();
}

void PlotPanel::set_figure(std::function<void(bool dark_page)> redraw) {
    redraw_ = std::move(redraw);
}

void PlotPanel::redraw_figure(bool dark_page) {
    if (redraw_) redraw_(dark_page);
}

void PlotPanel::enable_inspection(std::function<QString(const PlotHit&)> describe) {
    describe_ = std::move(describe);
    if (inspecting_) return;
    inspecting_ = true;
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->setMouseTracking(true);
    connect(plot_, &QCustomPlot::mouseMove, this,
            [this](QMouseEvent* e) { on_hover(e->position(), e->globalPosition().toPoint()); });
    plot_->installEventFilter(this);
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] {
        if (redraw_) {
            redraw_figure(theme_.name == "dark");
        } else {
            plot_->rescaleAxes();
        }
        plot_->replot();
    });
}

PlotHit PlotPanel::hit_at(const QPointF& pixel) const {
    // QCustomPlot's own hit test: 0 inside a bar, else the distance to a line or point, with the data index.
    PlotHit best;
    double best_distance = kHoverPixels;
    for (int i = 0; i < plot_->plottableCount(); ++i) {
        QCPAbstractPlottable* p = plot_->plottable(i);
        QCPPlottableInterface1D* data = p->interface1D();
        if (!p->visible() || !data) continue;
        QVariant details;
        const double d = p->selectTest(pixel, false, &details);
        const QCPDataSelection selection = details.value<QCPDataSelection>();
        if (d < 0 || d >= best_distance || selection.isEmpty()) continue;
        const int index = selection.dataRange().begin();
        best_distance = d;
        best = {p, data->dataMainKey(index), data->dataMainValue(index), {}};
    }
    if (best.plottable) {
        if (auto ticks = best.plottable->keyAxis()->ticker().dynamicCast<QCPAxisTickerText>()) {
            const auto it = ticks->ticks().constFind(best.key);
            if (it != ticks->ticks().constEnd()) best.key_label = it.value();
        }
    }
    return best;
}

QString PlotPanel::hover_text(const QPointF& pixel) const {
    const PlotHit hit = hit_at(pixel);
    if (!hit.plottable) return {};
    if (describe_) return describe_(hit);
    const QString key = hit.key_label.isEmpty() ? QString::number(hit.key, 'g', 6) : hit.key_label;
    const QString name = hit.plottable->name();
    return (name.isEmpty() ? QString() : name + ": ") + key + " → " + QString::number(hit.value, 'g', 4);
}

bool PlotPanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        if (const QString text = hover_text(help->pos()); !text.isEmpty()) {
            QToolTip::showText(help->globalPos(), text, plot_);
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void PlotPanel::on_hover(const QPointF& pixel, const QPoint& global) {
    const QString text = hover_text(pixel);
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(global, text, plot_);
}

QString PlotPanel::data_csv() const {
    return plot_data_csv(plot_, x_name_, y_name_);
}

bool PlotPanel::export_to(const QString& path, QString* error, QSize figure) {
    if (QFileInfo(path).suffix().toLower() == "csv") return save_text(path, data_csv(), error);
    if (!redraw_ || theme_.name != "dark") {
        const bool ok = save_plot(plot_, path, error, figure);
        if (figure.isValid()) plot_->replot();  // back to the dock's layout
        return ok;
    }
    // A figure on a dark page is exported on white: drawn again for the file, at the same zoom.
    const QCPRange x = plot_->xAxis->range(), y = plot_->yAxis->range();
    redraw_figure(false);
    plot_->xAxis->setRange(x);
    plot_->yAxis->setRange(y);
    const bool ok = save_plot(plot_, path, error, figure);
    redraw_figure(true);
    plot_->xAxis->setRange(x);
    plot_->yAxis->setRange(y);
    plot_->replot();
    return ok;
}

QPushButton* PlotPanel::add_export_button() {
    auto* button = new QPushButton("Export…");
    controls_->addWidget(button);
    connect(button, &QPushButton::clicked, this, &PlotPanel::export_dialog);
    return button;
}

void PlotPanel::export_dialog() {
    static QString folder;  // where the last export went, for the session
    QString filter;
    const QString typed = QFileDialog::getSaveFileName(
        this, "Export plot or data", QDir(folder).filePath(export_base_name(plot_) + ".png"),
        "PNG image (*.png);;SVG (*.svg);;PDF (*.pdf);;CSV data (*.csv)", &filter);
    if (typed.isEmpty()) return;
    const QString path = export_path(typed, filter);
    folder = QFileInfo(path).absolutePath();
    // A picture's size: the dock's shape, or a figure size of its own (asked once the file is named).
    static int last_size = 0;
    QSize figure;
    if (QFileInfo(path).suffix().toLower() != "csv") {
        QStringList names;
        for (const FigureSize& f : figure_sizes())
            names << f.name;
        bool ok = false;
        const QString picked =
            QInputDialog::getItem(this, "Export", "Figure size:", names, last_size, false, &ok);
        if (!ok) return;
        last_size = static_cast<int>(names.indexOf(picked));
        figure = figure_sizes().value(last_size).size;
    }
    QString error;
    if (!export_to(path, &error, figure)) QMessageBox::warning(this, "Export", error);
}

namespace {

int text_pixels(const QFont& font) {
    return QFontInfo(font).pixelSize();
}

QString plain_label_text(const QLabel* label) {
    QTextDocument doc;
    doc.setHtml(label->text());
    return Qt::mightBeRichText(label->text()) ? doc.toPlainText() : label->text();
}

QString widget_name(const QWidget* w) {
    return w->objectName().isEmpty() ? QString::fromLatin1(w->metaObject()->className()) : w->objectName();
}

void plot_problems(QCustomPlot* plot, QStringList& out) {
    const QString name = widget_name(plot);
    auto font_check = [&](const QFont& font, const QString& what) {
        if (text_pixels(font) < kMinTextPixels)
            out << QStringLiteral("%1: %2 text %3 px").arg(name, what).arg(text_pixels(font));
    };
    for (QCPAxisRect* rect : plot->axisRects()) {
        if (!rect->visible()) continue;
        const QRect r = rect->rect();
        if (r.height() < kMinPlotRectHeight || r.width() < kMinPlotRectWidth)
            out << QStringLiteral("%1: plot rectangle %2x%3 px").arg(name).arg(r.width()).arg(r.height());
        for (QCPAxis* axis : rect->axes()) {
            if (!axis->visible()) continue;
            if (axis->tickLabels()) font_check(axis->tickLabelFont(), "tick");
            if (!axis->label().isEmpty()) font_check(axis->labelFont(), "axis title");
        }
    }
    if (plot->legend && plot->legend->visible() && plot->legend->itemCount() > 0)
        font_check(plot->legend->font(), "legend");
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(plot->item(i)); text && text->visible())
            font_check(text->font(), "label '" + text->text().left(20) + "'");
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
        if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i));
            title && title->visible())
            font_check(title->font(), "title");
}

}  // namespace

QStringList legibility_problems(QWidget* root) {
    QStringList out;
    if (!root || !root->isVisible()) return out;
    QList<QWidget*> widgets = root->findChildren<QWidget*>();
    widgets.prepend(root);
    // Text drawn over a figure (a squeezed layout puts a label on top of a plot): the two boxes overlap.
    auto box = [root](QWidget* w) { return QRect(w->mapTo(root, QPoint(0, 0)), w->size()); };
    QList<QCustomPlot*> plots;
    for (QWidget* w : widgets)
        if (auto* plot = qobject_cast<QCustomPlot*>(w); plot && plot->isVisible()) plots << plot;
    for (QWidget* w : widgets) {
        auto* label = qobject_cast<QLabel*>(w);
        if (!label || !label->isVisible() || label->text().isEmpty() || label->visibleRegion().isEmpty())
            continue;
        for (QCustomPlot* plot : plots)
            if (!plot->isAncestorOf(label) && box(label).intersects(box(plot)))
                out << QStringLiteral("label '%1' overlaps %2")
                           .arg(plain_label_text(label).left(30), widget_name(plot));
    }
    for (QWidget* w : widgets) {
        if (!w->isVisible() || w->visibleRegion().isEmpty()) continue;  // behind a tab, scrolled away
        if (auto* plot = qobject_cast<QCustomPlot*>(w)) {
            plot_problems(plot, out);
        } else if (qobject_cast<QLabel*>(w) || qobject_cast<QAbstractButton*>(w) ||
                   qobject_cast<QLineEdit*>(w) || qobject_cast<QComboBox*>(w)) {
            if (text_pixels(w->font()) < kMinTextPixels)
                out << QStringLiteral("%1: text %2 px").arg(widget_name(w)).arg(text_pixels(w->font()));
        }
    }
    return out;
}

}  // namespace fone::gui
