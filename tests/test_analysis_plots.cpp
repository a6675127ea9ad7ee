// The drawings of widgets/analysis against the results they draw: every plotted value is the analysis'
// value, the circles' hands end on the embedding's pairs, a plot can be redrawn with another analysis, and
// the offscreen PNG has the asked size and the drawing's colours.
#include <qcustomplot.h>
#include <QFontMetrics>
#include <QFontMetricsF>
#include <QImage>
#include <QTemporaryDir>
#include <QtTest>
#include <limits>

#include <cmath>

#include "analysis_plots.h"
#include "fone/analysis/timeline.h"
#include "timeline_plots.h"
#include "token_loss_plots.h"

using fone::Decimal;
namespace fa = fone::analysis;
namespace fp = fone::plots;

namespace {

// The colour of the plot's page: the background brush, which QCustomPlot keeps without a getter, read off a
// small rendering's corner.
QColor page_colour(QCustomPlot& plot) {
    return plot.toPixmap(24, 24).toImage().pixelColor(0, 0);
}

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

// The Welcome's seven clocks for 123.456+654.321=: 777.777 read off hands of length 5.74.
fa::HiddenCircles welcome_clocks() {
    fone::FoneSpec spec;
    spec.int_digits = 4;
    spec.frac_digits = 3;
    std::vector<float> hidden;
    for (int d : {7, 7, 7, 7, 7, 7, 0}) {
        hidden.push_back(static_cast<float>(5.74 * std::cos(2 * M_PI * d / 10)));
        hidden.push_back(static_cast<float>(5.74 * std::sin(2 * M_PI * d / 10)));
    }
    hidden.push_back(-3.0f);  // past the pairs, as in a model's hidden state
    const Decimal truth = Decimal::parse("777.777");
    return fa::hidden_circles(hidden, spec, &truth);
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

    // Neighbouring spikes of different heights in a small plot (the Replay's spectrum panel: k = 45 and
    // 46 of 200 numbers): each label clears the other's marker and the other label.
    void spike_labels_keep_off_their_neighbours() {
        fa::Spectrum s;
        s.count = 200;
        for (int k = 0; k <= 100; ++k) {
            s.k.push_back(k);
            s.period.push_back(k == 0 ? std::numeric_limits<double>::infinity() : 200.0 / k);
            s.magnitude.push_back(k == 45 ? 1.88 : k == 46 ? 1.65 : k == 6 ? 1.85 : k == 5 ? 1.75 : 0.05);
        }
        QCustomPlot plot;
        plot.resize(300, 260);
        plot.setViewport(QRect(0, 0, 300, 260));
        fp::draw_spectrum(plot, s);
        plot.replot();
        QList<std::pair<QString, QRectF>> labels;
        for (int i = 0; i < plot.itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(plot.item(i)); t && t->text().startsWith("T = "))
                labels.push_back(
                    {t->text(), QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition())});
        QCOMPARE(labels.size(), 4);
        const QCPGraph* markers = plot.graph(1);
        for (const auto& [text, box] : labels) {
            for (const auto& [other, other_box] : labels)
                QVERIFY2(text == other || !box.intersects(other_box),
                         qPrintable(text + " overlaps " + other));
            for (auto m = markers->data()->constBegin(); m != markers->data()->constEnd(); ++m) {
                const QPointF at(plot.xAxis->coordToPixel(m->key), plot.yAxis->coordToPixel(m->value));
                QVERIFY2(!box.adjusted(-3, -3, 3, 3).contains(at),
                         qPrintable(text + QStringLiteral(" covers the marker at k = %1").arg(m->key)));
            }
            QVERIFY2(box.top() >= plot.axisRect()->rect().top() - 1, qPrintable(text + " leaves the axes"));
        }
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
        // Each circle is named by its digit's place, for people, over its period.
        for (const char* place : {"units", "tenths", "hundredths"})
            QVERIFY2(labels.contains(place), qPrintable(labels.join('|')));
        // Equal scales: one unit is as many pixels across as up. (A hidden widget gets no resize event, so
        // the viewport is set as toPixmap() sets it.)
        plot.setViewport(QRect(0, 0, w, h));
        plot.replot();
        const double per_x = plot.xAxis->coordToPixel(1) - plot.xAxis->coordToPixel(0);
        const double per_y = plot.yAxis->coordToPixel(0) - plot.yAxis->coordToPixel(1);
        QVERIFY2(std::abs(per_x - per_y) < 0.05 * per_x,
                 qPrintable(QString("%1 vs %2").arg(per_x).arg(per_y)));
    }

    void a_negative_number_is_read_clockwise() {
        // −42.5: FoNE negates every sine, so the T = 100 hand is at 360° − 153° = 207°. The marks are
        // mirrored too: the carried digit 4 sits at −144° (216°), just behind the hand, and the text says |x|
        // mod T.
        fone::FoneSpec spec;
        spec.int_digits = 2;
        spec.frac_digits = 1;
        const fa::UnitCircles c = fa::unit_circles(Decimal::parse("-42.5"), spec);
        QCustomPlot plot;
        const auto [w, h] = fp::circles_size(c);
        plot.resize(w, h);
        fp::CircleHandles handles;
        fp::draw_circles(plot, c, {}, &handles);
        const auto& tens = c.circles[2];  // T = 100 carries the tens digit
        QCOMPARE(tens.digit, 4);
        QVERIFY(std::abs(tens.angle * 180 / M_PI - 207.0) < 1e-9);
        QVERIFY(handles.mirrored);
        const auto carried = handles.carried[2]->data()->at(0);
        const double mark =
            std::atan2(carried->value - handles.centres[2].second, carried->key - handles.centres[2].first) *
            180 / M_PI;
        QVERIFY2(std::abs(mark - (-144.0)) < 1e-6, qPrintable(QString::number(mark)));
        const QStringList labels = texts(plot);
        QVERIFY2(labels.contains("|x| mod T = 42.5"), qPrintable(labels.join('|')));
        QVERIFY2(labels.contains("digit 4 · 153.0° clockwise"), qPrintable(labels.join('|')));
        // A positive number again: not mirrored (drawn afresh).
        QVERIFY(!fp::update_circles(handles, fa::unit_circles(Decimal::parse("42.5"), spec)));
    }

    void places_have_names() {
        QCOMPARE(QString::fromStdString(fp::place_name(0)), QString("units"));
        QCOMPARE(QString::fromStdString(fp::place_name(3)), QString("thousands"));
        QCOMPARE(QString::fromStdString(fp::place_name(-1)), QString("tenths"));
        QCOMPARE(QString::fromStdString(fp::place_name(-6)), QString("millionths"));
        QCOMPARE(QString::fromStdString(fp::place_name(9)), QString("10⁹s"));
        QCOMPARE(QString::fromStdString(fp::place_name(2, 7)), QString("7²s"));
    }

    void texts_fit_and_legends_keep_off_the_data() {
        // A long title in a narrow plot: two lines, none wider than the plot.
        QCustomPlot plot;
        plot.resize(360, 300);
        std::vector<fa::ProbeResult> results = {{2, 0.5, 0.5, 75, 25}, {10, 1.0, 0.12, 75, 25}};
        fp::draw_probe(plot, results, "Linear probe of x mod T, layer 3: block 3 of a long run name here");
        plot.setViewport(QRect(0, 0, 360, 300));
        plot.replot();
        auto* title = qobject_cast<QCPTextElement*>(plot.plotLayout()->element(0, 0));
        QVERIFY(title);
        QVERIFY(title->text().contains('\n'));
        for (const QString& line : title->text().split('\n'))
            QVERIFY2(QFontMetrics(title->font()).horizontalAdvance(line) <= 360, qPrintable(line));
        // The legend has a row of its own above the axes.
        QVERIFY(plot.legend->outerRect().bottom() <= plot.axisRect()->outerRect().top());
        // Bars that are small but not zero do not read 0.0%.
        fp::draw_bars(plot, {"a", "b", "c"}, {0.0004, 0.0, 0.032}, {.y_max = 0.05});
        const QStringList labels = texts(plot);
        QVERIFY2(labels.contains("0.04%") && labels.contains("0%") && labels.contains("3.2%"),
                 qPrintable(labels.join('|')));
    }

    void dark_paper_and_the_answer_line() {
        fone::FoneSpec spec;
        spec.int_digits = 1;
        spec.frac_digits = 0;
        const fa::UnitCircles c = fa::unit_circles(Decimal::parse("7"), spec);
        QCustomPlot plot;
        plot.resize(500, 400);
        fp::set_paper(plot, {.dark = true});
        fp::draw_circles(plot, c, "t", nullptr, "Read off the circles: 7");
        QVERIFY(page_colour(plot).lightness() < 80);
        QString footer;
        for (int i = 0; i < plot.plotLayout()->elementCount(); ++i)
            if (auto* t = qobject_cast<QCPTextElement*>(plot.plotLayout()->elementAt(i))) footer = t->text();
        QCOMPARE(footer, QString("Read off the circles: 7"));
        fp::set_paper(plot, {});
        fp::draw_circles(plot, c);
        QCOMPARE(page_colour(plot), QColor(Qt::white));
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
        QVERIFY(labels.contains("length 2.00"));
        // No text runs into another: the caption, length and the period labels of one circle are apart.
        plot.setViewport(QRect(0, 0, w, hgt));
        plot.replot();
        QList<std::pair<QString, QRectF>> boxes;
        for (int i = 0; i < plot.itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(plot.item(i)); t && t->text().size() > 2)
                boxes.push_back(
                    {t->text(), QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition())});
        QVERIFY(boxes.size() >= 3 * 4);  // caption, length, place and period of each circle
        for (int i = 0; i < boxes.size(); ++i)
            for (int j = i + 1; j < boxes.size(); ++j)
                QVERIFY2(!boxes[i].second.intersects(boxes[j].second),
                         qPrintable(boxes[i].first + " overlaps " + boxes[j].first));
        QVERIFY(plot.plotLayout()->elementCount() >= 2);
    }

    // Seven clocks whose size the height decides (the Welcome's figure above the training plots on a
    // 1920 x 1080 screen, about 870 x 520): 4 + 3, not 6 + 1, which draws them no larger.
    void seven_clocks_fill_their_rows_evenly() {
        const fa::HiddenCircles h = welcome_clocks();
        QCustomPlot plot;
        plot.resize(870, 520);
        fp::draw_hidden_circles(plot, h,
                                "Hidden state of demo-model for 123.456+654.321=", "The model answers");
        plot.setViewport(QRect(0, 0, 870, 520));
        plot.replot();
        QMap<int, int> titles_per_row;  // a clock's place name ("thousands", ...) per pixel row
        for (int i = 0; i < plot.itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(plot.item(i));
                t &&
                QStringList{"thousands", "hundreds", "tens", "units", "tenths", "hundredths", "thousandths"}
                    .contains(t->text()))
                ++titles_per_row[qRound(t->position->pixelPosition().y())];
        QCOMPARE(titles_per_row.size(), 2);
        QCOMPARE(titles_per_row.first(), 4);
        QCOMPARE(titles_per_row.last(), 3);
    }

    void seven_clocks_in_a_short_plot_keep_their_texts_apart() {
        // The welcome view on a 1280 x 720 screen: 7 clocks in a plot about 535 x 160. Each cell is as wide
        // as its captions ("7 ✓", "length 5.74"), and the bars make way rather than shrinking the clocks.
        const fa::HiddenCircles h = welcome_clocks();
        QCOMPARE(h.pairs.size(), std::size_t(7));
        QCustomPlot plot;
        plot.resize(535, 160);
        fp::draw_hidden_circles(plot, h,
                                "Hidden state of demo-model for 123.456+654.321=", "The model answers");
        plot.setViewport(QRect(0, 0, 535, 160));
        plot.replot();
        QList<std::pair<QString, QRectF>> boxes;
        int bars = 0;
        for (int i = 0; i < plot.itemCount(); ++i) {
            bars += qobject_cast<QCPItemRect*>(plot.item(i)) != nullptr;
            if (auto* t = qobject_cast<QCPItemText*>(plot.item(i)); t && t->text().size() > 1)
                boxes.push_back(
                    {t->text(), QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition())});
        }
        QCOMPARE(bars, 0);
        QVERIFY(texts(plot).contains("length 5.74"));
        QVERIFY(texts(plot).contains("7 ✓"));
        for (int i = 0; i < boxes.size(); ++i) {
            QVERIFY2(QRectF(0, 0, 535, 160).contains(boxes[i].second),
                     qPrintable(boxes[i].first + " is cut"));
            for (int j = i + 1; j < boxes.size(); ++j)
                QVERIFY2(!boxes[i].second.intersects(boxes[j].second),
                         qPrintable(boxes[i].first + " overlaps " + boxes[j].first));
        }
    }

    // The Timeline's labels of periods in neighbouring rows (T = 200, 100, 50 three rows apart, as a
    // 200-number probe set gives them) never overprint: the third goes above the others (issue 28).
    // Bar values over narrow bars (the Errors view's seven digit positions in a 280 px dock): whole
    // percents whose boxes keep apart; over wide bars, one decimal; under 1%, as it is.
    void narrow_bars_keep_their_values_apart() {
        const std::vector<std::string> places{"10³", "10²", "10¹", "1", "10⁻¹", "10⁻²", "10⁻³"};
        const std::vector<double> rates{0.02, 0.105, 0.17, 0.17, 0.165, 0.145, 0.004};
        for (const QSize size : {QSize(280, 480), QSize(1000, 480)}) {
            QCustomPlot plot;
            plot.resize(size);
            plot.setViewport(QRect(QPoint(0, 0), size));
            fp::draw_bars(plot, places, rates, {.y_max = 0.2});
            plot.replot();
            QList<std::pair<QString, QRectF>> boxes;
            for (int i = 0; i < plot.itemCount(); ++i)
                if (auto* text = qobject_cast<QCPItemText*>(plot.item(i)); text && text->text().endsWith('%'))
                    boxes.push_back({text->text(), QRectF(text->topLeft->pixelPosition(),
                                                          text->bottomRight->pixelPosition())});
            QCOMPARE(boxes.size(), 7);
            const bool narrow = size.width() < 500;
            QCOMPARE(boxes[2].first, narrow ? QString("17%") : QString("17.0%"));
            QCOMPARE(boxes[1].first, narrow ? QString("11%") : QString("10.5%"));
            QCOMPARE(boxes[6].first, QString("0.4%"));
            for (int i = 0; i + 1 < boxes.size(); ++i)
                QVERIFY2(boxes[i].second.right() < boxes[i + 1].second.left(),
                         qPrintable(QStringLiteral("%1 px: ").arg(size.width()) + boxes[i].first +
                                    " touches " + boxes[i + 1].first));
        }
    }

    void timeline_labels_keep_apart() {
        fa::Timeline t;
        for (int s = 1; s <= 40; ++s)
            t.steps.push_back(10 * s);
        for (int k = 0; k <= 100; ++k) {
            t.k.push_back(k);
            t.period.push_back(k == 0 ? 0.0 : 200.0 / k);
        }
        t.magnitude.push_back(Eigen::MatrixXd::Constant(40, 101, 0.1));
        t.key_periods.push_back(
            {{1, 200, 4, 80}, {2, 100, 3, 10}, {4, 50, 3, 90}, {20, 10, 2, 10}, {40, 5, 2, 150}});
        for (const QSize size : {QSize(760, 260), QSize(760, 180), QSize(1200, 600)}) {
            QCustomPlot plot;
            plot.resize(size);
            plot.setViewport(QRect(QPoint(0, 0), size));
            fp::draw_timeline(plot, t, 0, "Spectrum over training", -1);
            plot.replot();
            QList<std::pair<QString, QRectF>> boxes;
            for (int i = 0; i < plot.itemCount(); ++i)
                if (auto* text = qobject_cast<QCPItemText*>(plot.item(i));
                    text && text->text().startsWith("T="))
                    boxes.push_back({text->text(), QRectF(text->topLeft->pixelPosition(),
                                                          text->bottomRight->pixelPosition())});
            QCOMPARE(boxes.size(), 5);
            for (int i = 0; i < boxes.size(); ++i)
                for (int j = i + 1; j < boxes.size(); ++j)
                    QVERIFY2(!boxes[i].second.intersects(boxes[j].second),
                             qPrintable(QStringLiteral("%1x%2: ").arg(size.width()).arg(size.height()) +
                                        boxes[i].first + " overlaps " + boxes[j].first));
        }
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

    // Token loss draws a document as its pieces; a word made of several pieces ("expl" + "orer") goes to the
    // next line whole, never split between its pieces (issue 42: "expl|orer" and "seal|ers" at 1280x720).
    void token_pieces_wrap_between_words() {
        fa::TokenLossComparison c;
        for (const char* text : {"Hello", " expl", "orer", " of", " the", " sea\n", "Next"}) {
            fa::LossPiece p;
            p.text = text;
            c.a.pieces.push_back(p);
            c.b.pieces.push_back(p);
        }
        const QFont font("DejaVu Sans", 10);
        const double width = QFontMetricsF(font).horizontalAdvance("Hello explor");  // not "Hello explorer"
        const fp::PieceLayout layout = fp::layout_pieces(c, font, 0, 0, width);
        QCOMPARE(layout.boxes.size(), std::size_t{7});
        const auto top = [&](int i) { return layout.boxes[i].box.top(); };
        QVERIFY(top(1) > top(0));                          // " expl" starts the second line ...
        QCOMPARE(top(2), top(1));                          // ... with "orer": the word whole
        QCOMPARE(layout.boxes[1].shown, QString("expl"));  // a line starts at its first character
        QVERIFY(top(6) > top(5));                          // after "sea\n" a new line
        // A word wider than a line still breaks, between its pieces.
        const fp::PieceLayout narrow =
            fp::layout_pieces(c, font, 0, 0, QFontMetricsF(font).horizontalAdvance("expl"));
        QVERIFY(narrow.boxes[2].box.top() > narrow.boxes[1].box.top());
    }
};

QTEST_MAIN(TestAnalysisPlots)
#include "test_analysis_plots.moc"
