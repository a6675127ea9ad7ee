#include "plot_panel.h"

#include <qcustomplot.h>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QVBoxLayout>

#include <cstdio>

namespace fone::gui {

namespace {
constexpr int kExportWidth = 1200, kExportHeight = 750;

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

bool save_plot(QCustomPlot* plot, const QString& path, QString* error) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    const QString tmp = temp_path_for(path);
    plot->deselectAll();
    bool ok = false;
    if (suffix == "png") {
        ok = plot->savePng(tmp, kExportWidth, kExportHeight, 2.0);
    } else if (suffix == "pdf") {
        ok = plot->savePdf(tmp, kExportWidth, kExportHeight, QCP::epNoCosmetic);
    } else if (suffix == "svg") {
        QSvgGenerator svg;
        svg.setFileName(tmp);
        svg.setSize(QSize(kExportWidth, kExportHeight));
        svg.setViewBox(QRect(0, 0, kExportWidth, kExportHeight));
        svg.setTitle("FoNE Workbench plot");
        QCPPainter painter;
        ok = painter.begin(&svg);
        if (ok) {
            plot->toPainter(&painter, kExportWidth, kExportHeight);
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

PlotPanel::PlotPanel(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot), controls_(new QHBoxLayout) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls_);
    layout->addWidget(plot_, 1);
    plot_->setNoAntialiasingOnDrag(true);
    plot_->setMinimumSize(200, 150);
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
    apply_theme_to_plot(theme, plot_);
    plot_->replot();
}

QString PlotPanel::data_csv() const {
    return plot_data_csv(plot_, x_name_, y_name_);
}

bool PlotPanel::export_to(const QString& path, QString* error) {
    if (QFileInfo(path).suffix().toLower() == "csv") return save_text(path, data_csv(), error);
    return save_plot(plot_, path, error);
}

QPushButton* PlotPanel::add_export_button() {
    auto* button = new QPushButton("Export…");
    controls_->addWidget(button);
    connect(button, &QPushButton::clicked, this, &PlotPanel::export_dialog);
    return button;
}

void PlotPanel::export_dialog() {
    const QString path =
        QFileDialog::getSaveFileName(this, "Export plot or data", "plot.png",
                                     "PNG image (*.png);;SVG (*.svg);;PDF (*.pdf);;CSV data (*.csv)");
    if (path.isEmpty()) return;
    QString error;
    if (!export_to(path, &error)) QMessageBox::warning(this, "Export", error);
}

}  // namespace fone::gui
