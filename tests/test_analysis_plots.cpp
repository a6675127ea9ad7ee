// The drawings of widgets/analysis against the results they draw: every plotted value is the analysis'
// value, the circles' hands end on the embedding's pairs, a plot can be redrawn with another analysis, and
// the offscreen PNG has the asked size and the drawing's colours.
#include <qcustomplot.h>
#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "analysis_plots.h"

using fone::Decimal;
namespace fa = fone::analysis;
namespace fp = fone::plots;

namespace {

fa::Spectrum encoder_spectrum() {
    fone::FoneSpec spec;
    spec.int_digits = 3;
    spec.frac_digits = 0;
    return fa::fourier_spectrum(
        fa::encoder_matrix(fa::number_range(Decimal(), Decimal::from_int(1), 1000), spec));
}

QStringList texts(const QCustomPlot& plot) {
    QStringList out;
    for (int i = 0; i < plot.itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(plot.item(i))) out << t->text();
    return out;
}

}  // namespace

class TestAnalysisPlots : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void spectrum_plots_every_magnitude_and_labels_the_periods() {
        const fa::Spectrum s = encoder_spectrum();
        QCustomPlot plot;
        plot.resize(1000, 500);
        fp::draw_spectrum(plot, s, {.log_k = false});
        const auto* data = plot.graph(0)->data().data();
        QCOMPARE(data->size(), 501);
        for (int k = 0; k <= 500; ++k)
            QCOMPARE(data->at(k)->value, s.magnitude[static_cast<std::size_t>(k)]);
        const QStringList labels = texts(plot);
        for (const char* label : {"T = 10", "T = 100", "T = 1000"})
            QVERIFY2(labels.contains(label), qPrintable(labels.join('|')));
        QCOMPARE(labels.size(), 3);
        // Logarithmic k leaves out k = 0.
        fp::draw_spectrum(plot, s);
        QCOMPARE(plot.graph(0)->data()->size(), 500);
        QCOMPARE(plot.xAxis->scaleType(), QCPAxis::stLogarithmic);
    }

    void heatmap_cells_are_the_magnitudes() {
        Eigen::MatrixXd a(20, 1), b(20, 1);
        for (int n = 0; n < 20; ++n) {
            a(n, 0) = std::cos(2 * M_PI * n / 10);
            b(n, 0) = 2 * std::cos(2 * M_PI * n / 4);
        }
        const fa::LayerSpectra h = fa::layer_spectra({a, b});
        QCustomPlot plot;
        fp::draw_layer_heatmap(plot, h, {"embedding", "layer 1"});
        auto* map = qobject_cast<QCPColorMap*>(plot.plottable(0));
        QVERIFY(map);
        QCOMPARE(map->data()->keySize(), 11);
        QCOMPARE(map->data()->valueSize(), 2);
        for (int l = 0; l < 2; ++l)
            for (int k = 0; k < 11; ++k)
                QCOMPARE(map->data()->cell(k, l), h.magnitude(l, k));
        QCOMPARE(plot.xAxis2->ticker().dynamicCast<QCPAxisTickerText>()->ticks().value(5), QString("T=4"));
    }

    void pca_points_are_the_projections() {
        Eigen::MatrixXd rows(6, 2);
        rows << 2, 0, -2, 0, 0, 1, 0, -1, 1, 1, -1, -1;
        const fa::Pca p = fa::pca(rows, 2);
        const std::vector<int> classes = {0, 0, 1, 1, 2, 2};
        QCustomPlot plot;
        fp::draw_pca(plot, p, classes, 3, "class");
        QCOMPARE(plot.graphCount(), 3);
        for (int c = 0; c < 3; ++c) {
            // A graph keeps its points sorted by key.
            const auto* data = plot.graph(c)->data().data();
            QCOMPARE(data->size(), 2);
            const int first = p.projection(2 * c, 0) <= p.projection(2 * c + 1, 0) ? 2 * c : 2 * c + 1;
            const int second = 4 * c + 1 - first;
            QCOMPARE(data->at(0)->key, p.projection(first, 0));
            QCOMPARE(data->at(0)->value, p.projection(first, 1));
            QCOMPARE(data->at(1)->key, p.projection(second, 0));
            QCOMPARE(data->at(1)->value, p.projection(second, 1));
        }
        QVERIFY(plot.legend->visible());
        QVERIFY(plot.xAxis->label().startsWith("PC1 ("));
    }

    void circle_hands_end_on_the_pairs() {
        fone::FoneSpec spec;
        spec.int_digits = 1;
        spec.frac_digits = 2;
        const fa::UnitCircles c = fa::unit_circles(Decimal::parse("4.17"), spec);
        QCustomPlot plot;
        const auto [w, h] = fp::circles_size(c);
        plot.resize(w, h);
        fp::draw_circles(plot, c);
        QList<QPointF> hands;
        for (int i = 0; i < plot.itemCount(); ++i)
            if (auto* line = qobject_cast<QCPItemLine*>(plot.item(i)))
                hands << line->end->coords() - line->start->coords();
        QCOMPARE(hands.size(), 3);
        // Drawn largest period first: T = 10, 1, 0.1.
        for (int i = 0; i < 3; ++i) {
            const auto& circle = c.circles[static_cast<std::size_t>(2 - i)];
            QVERIFY(std::abs(hands[i].x() - circle.x) < 1e-12 && std::abs(hands[i].y() - circle.y) < 1e-12);
        }
        const QStringList labels = texts(plot);
        QVERIFY(labels.contains("x mod T = 4.17"));
        QVERIFY(labels.contains("T = 0.1"));
        // Equal scales: one unit is as many pixels across as up. (A hidden widget gets no resize event, so
        // the viewport is set as toPixmap() sets it.)
        plot.setViewport(QRect(0, 0, w, h));
        plot.replot();
        const double per_x = plot.xAxis->coordToPixel(1) - plot.xAxis->coordToPixel(0);
        const double per_y = plot.yAxis->coordToPixel(0) - plot.yAxis->coordToPixel(1);
        QVERIFY2(std::abs(per_x - per_y) < 0.05 * per_x,
                 qPrintable(QString("%1 vs %2").arg(per_x).arg(per_y)));
    }

    void hidden_state_bars_are_the_probabilities() {
        // 4.17 (m = 1, n = 2) with the units pair pointing at 2: hands along the pairs, bars the softmax.
        fone::FoneSpec spec;
        spec.int_digits = 1;
        spec.frac_digits = 2;
        std::vector<float> hidden;
        for (int d : {7, 2, 4}) {
            hidden.push_back(static_cast<float>(2.0 * std::cos(2 * M_PI * d / 10)));
            hidden.push_back(static_cast<float>(2.0 * std::sin(2 * M_PI * d / 10)));
        }
        hidden.push_back(-3.0f);
        const Decimal truth = Decimal::parse("4.17");
        const fa::HiddenCircles h = fa::hidden_circles(hidden, spec, &truth);
        QCustomPlot plot;
        const auto [w, hgt] = fp::hidden_circles_size(h);
        plot.resize(w, hgt);
        fp::draw_hidden_circles(plot, h);
        QList<double> heights;
        QList<QPointF> hands;
        for (int i = 0; i < plot.itemCount(); ++i) {
            if (auto* bar = qobject_cast<QCPItemRect*>(plot.item(i)))
                heights << bar->topLeft->coords().y() - bar->bottomRight->coords().y();
            if (auto* line = qobject_cast<QCPItemLine*>(plot.item(i)))
                hands << line->end->coords() - line->start->coords();
        }
        QCOMPARE(heights.size(), 30);
        QCOMPARE(hands.size(), 3);
        // Drawn highest digit first: the units pair (slot 2) is the first circle, its bars the first ten.
        for (int j = 0; j < 10; ++j)
            QVERIFY(std::abs(heights[j] -
                             1.3 * std::max(h.pairs[2].probabilities[static_cast<std::size_t>(j)], 0.004)) <
                    1e-12);
        QVERIFY(std::abs(hands[1].x() - h.pairs[1].x) < 1e-12 &&
                std::abs(hands[1].y() - h.pairs[1].y) < 1e-12);
        const QStringList labels = texts(plot);
        QVERIFY(labels.contains("predicted 2 · true 1"));
        QVERIFY(labels.contains("|h| = 2.00"));
        QVERIFY(plot.plotLayout()->elementCount() >= 2);
    }

    void probe_bars_are_the_accuracies() {
        std::vector<fa::ProbeResult> results = {{2, 0.5, 0.5, 75, 25}, {10, 1.0, 0.12, 75, 25}};
        QCustomPlot plot;
        fp::draw_probe(plot, results);
        auto* bars = qobject_cast<QCPBars*>(plot.plottable(0));
        QVERIFY(bars);
        QCOMPARE(bars->data()->at(1)->value, 1.0);
        QCOMPARE(qobject_cast<QCPBars*>(plot.plottable(1))->data()->at(1)->value, 0.12);
    }

    void one_plot_takes_drawing_after_drawing() {
        QCustomPlot plot;
        fa::Pca p = fa::pca(Eigen::MatrixXd::Random(50, 4), 2);
        fp::draw_pca(plot, p, std::vector<int>(50, 0), 40, "x mod 40");  // > 10 classes: a colour scale
        QCOMPARE(plot.plotLayout()->columnCount(), 2);
        fp::draw_spectrum(plot, encoder_spectrum());
        QCOMPARE(plot.plotLayout()->columnCount(), 1);
        QCOMPARE(plot.plotLayout()->rowCount(), 2);  // title and axis rect
        QCOMPARE(plot.graphCount(), 2);
        QVERIFY(!plot.legend->visible());
    }

    void png_has_the_size_and_the_drawing() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("s.png").toStdString();
        fp::write_png(path, 640, 360, [](QCustomPlot& plot) { fp::draw_spectrum(plot, encoder_spectrum()); });
        const QImage image(QString::fromStdString(path));
        QCOMPARE(image.size(), QSize(640, 360));
        int red = 0, white = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                red += c.red() > 180 && c.green() < 80 && c.blue() < 80;  // the spike markers and labels
                white += c == Qt::white;
            }
        QVERIFY2(red > 50, qPrintable(QString::number(red)));
        QVERIFY(white > image.width() * image.height() / 2);
        QVERIFY_THROWS_EXCEPTION(
            std::runtime_error,
            fp::write_png(dir.filePath("no/such/folder/s.png").toStdString(), 100, 100, [](QCustomPlot&) {}));
    }
};

QTEST_MAIN(TestAnalysisPlots)
#include "test_analysis_plots.moc"
