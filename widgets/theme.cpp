#include "theme.h"

#include <qcustomplot.h>
#include <QApplication>
#include <QPainter>
#include <QPalette>
#include <QPixmap>
#include <QStyleFactory>

namespace fone::gui {

QColor Theme::series(int i) const {
    static const QRgb kTableau[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                    0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
    QColor c(kTableau[((i % 10) + 10) % 10]);
    return name == "dark" ? c.lighter(125) : c;
}

QIcon colour_swatch(const QColor& colour) {
    QPixmap square(12, 12);
    square.fill(Qt::white);
    QPainter p(&square);
    p.fillRect(1, 1, 10, 10, colour);
    p.end();
    QIcon icon;
    for (QIcon::Mode mode : {QIcon::Normal, QIcon::Selected, QIcon::Active})
        icon.addPixmap(square, mode);
    return icon;
}

QColor swatch_colour(const QVariant& decoration) {
    const QIcon icon = decoration.value<QIcon>();
    if (icon.isNull()) return {};
    return icon.pixmap(12, 12).toImage().pixelColor(6, 6);
}

Theme light_theme() {
    return {"light", Qt::white, QColor(0x20, 0x20, 0x20), QColor(0xdd, 0xdd, 0xdd), QColor(0xf0, 0xf0, 0xf0)};
}

Theme dark_theme() {
    return {"dark", QColor(0x23, 0x25, 0x29), QColor(0xe0, 0xe0, 0xe0), QColor(0x44, 0x47, 0x4d),
            QColor(0x32, 0x34, 0x39)};
}

Theme theme_named(const QString& name) {
    return name == "dark" ? dark_theme() : light_theme();
}

void apply_theme_to_app(const Theme& theme) {
    QApplication::setStyle(QStyleFactory::create("Fusion"));
    if (theme.name != "dark") {
        QApplication::setPalette(QApplication::style()->standardPalette());
        return;
    }
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x1f, 0x22), text(0xe0, 0xe0, 0xe0);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::Highlight, QColor(0x2f, 0x65, 0xca));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(0x88, 0x88, 0x88));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x70, 0x70, 0x70));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x70, 0x70, 0x70));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x70, 0x70, 0x70));
    QApplication::setPalette(p);
}

void apply_theme_to_plot(const Theme& theme, QCustomPlot* plot) {
    plot->setBackground(theme.background);
    for (QCPAxisRect* rect : plot->axisRects())
        rect->setBackground(theme.background);
    for (QCPAxis* axis : plot->axisRects().isEmpty() ? QList<QCPAxis*>() : plot->axisRect()->axes()) {
        axis->setBasePen(QPen(theme.foreground));
        axis->setTickPen(QPen(theme.foreground));
        axis->setSubTickPen(QPen(theme.foreground));
        axis->setTickLabelColor(theme.foreground);
        axis->setLabelColor(theme.foreground);
        axis->grid()->setPen(QPen(theme.grid, 0, Qt::DotLine));
        axis->grid()->setSubGridPen(QPen(theme.subgrid, 0, Qt::DotLine));
        axis->grid()->setZeroLinePen(Qt::NoPen);
    }
    plot->legend->setBrush(theme.background);
    plot->legend->setBorderPen(QPen(theme.grid));
    plot->legend->setTextColor(theme.foreground);
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
        if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i)))
            title->setTextColor(theme.foreground);
}

}  // namespace fone::gui
