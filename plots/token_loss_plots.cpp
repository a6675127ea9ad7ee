#include "token_loss_plots.h"

#include <QFontMetricsF>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "analysis_plots.h"
#include "plot_style.h"

namespace fone::plots {

using analysis::TokenLossComparison;

LossColouring loss_colouring_from_name(const std::string& name) {
    if (name == "a") return LossColouring::a;
    if (name == "b") return LossColouring::b;
    return LossColouring::difference;
}

namespace {

// White blended towards `full` by t in [0, 1].
QColor towards(const QColor& full, double t) {
    t = std::clamp(t, 0.0, 1.0);
    const auto mix = [t](int c) { return static_cast<int>(std::lround(255 + (c - 255) * t)); };
    return QColor(mix(full.red()), mix(full.green()), mix(full.blue()));
}

const QColor kLower(46, 160, 67);   // a pays less
const QColor kHigher(215, 58, 73);  // a pays more
const QColor kLoss(215, 58, 73);    // one run's loss
const QColor kInk(20, 20, 20);

QString shown_text(const analysis::LossPiece& p) {
    QString s = QString::fromStdString(p.text);
    s.replace('\t', ' ');
    return s;
}

// A piece as drawn: its text, its line end as "↵" (ends_line says it had one).
QString drawn_text(const analysis::LossPiece& p, bool* ends_line) {
    QString text = shown_text(p);
    *ends_line = text.endsWith('\n');
    text.remove('\n');
    if (*ends_line) text += QStringLiteral("↵");
    return text;
}

QString without_leading_spaces(const QString& s) {
    qsizetype k = 0;
    while (k < s.size() && s[k] == ' ')
        ++k;
    return s.mid(k);
}

QString run_label(const analysis::DocumentLosses& d) {
    return QString::fromStdString(d.run + " (" + d.method + ")");
}

}  // namespace

QColor piece_colour(const TokenLossComparison& c, std::size_t i, LossColouring colouring) {
    const double a = c.a.pieces[i].loss, b = c.b.pieces[i].loss;
    switch (colouring) {
        case LossColouring::a:
            return towards(kLoss, a / kLossSaturation);
        case LossColouring::b:
            return towards(kLoss, b / kLossSaturation);
        case LossColouring::difference:
            break;
    }
    return a <= b ? towards(kLower, (b - a) / kDifferenceSaturation)
                  : towards(kHigher, (a - b) / kDifferenceSaturation);
}

namespace {

// Where the word that piece i starts ends: the next piece that starts with a space or follows a line's or
// a space's end. Pieces are subwords: "expl" + "orer" is one word, wrapped as one.
std::size_t word_end(const std::vector<analysis::LossPiece>& pieces, std::size_t i) {
    for (std::size_t j = i + 1; j < pieces.size(); ++j) {
        const std::string &before = pieces[j - 1].text, &text = pieces[j].text;
        if (text.empty() || text.front() == ' ' || before.empty() || before.back() == ' ' ||
            before.back() == '\n')
            return j;
    }
    return pieces.size();
}

}  // namespace

PieceLayout layout_pieces(const TokenLossComparison& c, const QFont& font, double left, double top,
                          double width) {
    const QFontMetricsF metrics(font);
    const double line = std::ceil(metrics.height() * 1.25);
    const auto piece_width = [&](std::size_t i) {
        bool ends_line = false;
        return metrics.horizontalAdvance(drawn_text(c.a.pieces[i], &ends_line)) +
               (c.a.pieces[i].number ? 4 : 0);
    };
    PieceLayout out;
    double x = left, y = top;
    const auto new_line = [&] {
        x = left;
        y += line;
    };
    std::size_t word_ends = 0;
    for (std::size_t i = 0; i < c.a.pieces.size(); ++i) {
        bool ends_line = false;
        QString text = drawn_text(c.a.pieces[i], &ends_line);
        const double w = piece_width(i);
        if (i >= word_ends) {  // a word starts: it goes to the next line whole if it does not fit on this one
            word_ends = word_end(c.a.pieces, i);
            double word = 0;
            for (std::size_t j = i; j < word_ends; ++j)
                word += piece_width(j);
            if (x > left && x + word > left + width) new_line();
        }
        if (x > left && x + w > left + width) new_line();    // a word wider than a line breaks between pieces
        if (x == left) text = without_leading_spaces(text);  // a line starts at its first character
        if (text.isEmpty()) text = QStringLiteral("·");      // a piece of spaces only stays visible
        const double shown_w = metrics.horizontalAdvance(text) + (c.a.pieces[i].number ? 4 : 0);
        out.boxes.push_back({i, QRectF(x, y, std::max(shown_w, 3.0), line), text});
        x += shown_w;
        if (ends_line) new_line();
    }
    out.bottom = x == left ? y : y + line;
    return out;
}

int piece_at(const PieceLayout& layout, const QPointF& point) {
    for (const PieceBox& b : layout.boxes)
        if (b.box.contains(point)) return static_cast<int>(b.piece);
    return -1;
}

void paint_pieces(QPainter& painter, const TokenLossComparison& c, const PieceLayout& layout,
                  LossColouring colouring, const QFont& font) {
    QFont bold = font;
    bold.setBold(true);
    for (const PieceBox& b : layout.boxes) {
        const bool number = c.a.pieces[b.piece].number;
        const QRectF box = b.box.adjusted(0, 1, 0, -1);
        painter.fillRect(box, piece_colour(c, b.piece, colouring));
        if (number) {
            painter.setPen(QPen(kInk, 1.2));
            painter.drawRect(box.adjusted(0.6, 0.6, -0.6, -0.6));
        }
        painter.setPen(kInk);
        painter.setFont(number ? bold : font);
        painter.drawText(box, Qt::AlignCenter | Qt::TextDontClip, b.shown);
    }
}

QString piece_description(const TokenLossComparison& c, std::size_t i) {
    const analysis::LossPiece &a = c.a.pieces[i], &b = c.b.pieces[i];
    const auto side = [](const analysis::DocumentLosses& d, const analysis::LossPiece& p) {
        QString s = QStringLiteral("%1: %2 nats, %3 token%4")
                        .arg(run_label(d))
                        .arg(p.loss, 0, 'f', 2)
                        .arg(p.tokens)
                        .arg(p.tokens == 1 ? "" : "s");
        if (p.number)
            s += QStringLiteral(", writes %1")
                     .arg(p.predicted.empty() ? QStringLiteral("no number")
                                              : QString::fromStdString(p.predicted));
        return s;
    };
    QString head = a.number ? QStringLiteral("number %1 (value %2)")
                                  .arg(QString::fromStdString(a.text), QString::fromStdString(a.value))
                            : QStringLiteral("text \"%1\"").arg(QString::fromStdString(a.text).trimmed());
    return head + "\n" + side(c.a, a) + "\n" + side(c.b, b) +
           QStringLiteral("\na - b: %1 nats").arg(a.loss - b.loss, 0, 'f', 2);
}

QString colouring_key(const TokenLossComparison& c, LossColouring colouring) {
    if (colouring == LossColouring::difference)
        return QStringLiteral(
                   "Green: %1 pays less than %2; red: more (full colour at %3 nats). Numbers framed.")
            .arg(run_label(c.a), run_label(c.b))
            .arg(kDifferenceSaturation, 0, 'f', 0);
    return QStringLiteral("Loss under %1: white 0 nats, red %2 nats or more. Numbers framed.")
        .arg(run_label(colouring == LossColouring::a ? c.a : c.b))
        .arg(kLossSaturation, 0, 'f', 0);
}

QString comparison_headline(const TokenLossComparison& c) {
    const analysis::ComparisonSummary s = analysis::summarise(c);
    return QStringLiteral(
               "Nats per text token: %1 %2, %3 %4 (%1 lower on %5% of %6 pieces). "
               "Nats per number: %1 %7, %3 %8 (%1 lower on %9% of %10).")
        .arg(QString::fromStdString(c.a.method))
        .arg(s.text_loss_a, 0, 'f', 2)
        .arg(QString::fromStdString(c.b.method))
        .arg(s.text_loss_b, 0, 'f', 2)
        .arg(100 * s.text_a_lower, 0, 'f', 0)
        .arg(s.text_pieces)
        .arg(s.number_loss_a, 0, 'f', 2)
        .arg(s.number_loss_b, 0, 'f', 2)
        .arg(100 * s.numbers_a_lower, 0, 'f', 0)
        .arg(s.numbers);
}

void write_token_loss_png(const std::string& path, const TokenLossComparison& c, LossColouring colouring,
                          int width, int max_lines) {
    ensure_application();
    using style::fit_lines, style::line_height;
    const QFont body = style::font(10), title = style::font(12, true), small = style::font(9);
    const int margin = 24;
    const QString heading = QStringLiteral("%1 (test document %2 of %3): %4 against %5")
                                .arg(QString::fromStdString(c.a.document))
                                .arg(c.a.index)
                                .arg(c.a.documents)
                                .arg(run_label(c.a), run_label(c.b));
    const QString lines = fit_lines(comparison_headline(c), small, width - 2 * margin, 3) + "\n" +
                          fit_lines(colouring_key(c, colouring), small, width - 2 * margin, 2);
    const double text_top = margin + 2.2 * line_height(title) + 5.5 * line_height(small);
    PieceLayout layout = layout_pieces(c, body, margin, text_top, width - 2 * margin);
    const double line = layout.boxes.empty() ? 1 : layout.boxes.front().box.height();
    const double last = text_top + max_lines * line;
    const auto cut = std::find_if(layout.boxes.begin(), layout.boxes.end(),
                                  [&](const PieceBox& b) { return b.box.bottom() > last + 0.5; });
    const bool shortened = cut != layout.boxes.end();
    layout.boxes.erase(cut, layout.boxes.end());
    const double bottom = std::min(layout.bottom, last) + (shortened ? 2 * line : 0) + margin;
    QImage image(width * 2, static_cast<int>(std::ceil(bottom)) * 2, QImage::Format_ARGB32);
    image.setDevicePixelRatio(2);
    image.fill(Qt::white);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    p.setPen(kInk);
    p.setFont(title);
    p.drawText(QRectF(margin, margin, width - 2 * margin, 2.2 * line_height(title)), Qt::TextWordWrap,
               fit_lines(heading, title, width - 2 * margin, 2));
    p.setFont(small);
    p.drawText(
        QRectF(margin, margin + 2.2 * line_height(title), width - 2 * margin, 5.5 * line_height(small)),
        Qt::AlignLeft | Qt::AlignTop, lines);
    paint_pieces(p, c, layout, colouring, body);
    if (shortened) {
        p.setFont(small);
        p.setPen(kInk);
        p.drawText(QPointF(margin, last + 1.4 * line),
                   QStringLiteral("… the rest of the document (%1 pieces in all) left out: --max-lines")
                       .arg(c.a.pieces.size()));
    }
    p.end();
    save_png(path, image);
}

}  // namespace fone::plots
