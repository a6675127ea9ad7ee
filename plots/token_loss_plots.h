// A document with each piece coloured by the loss two text runs pay for it (fone/analysis/token_loss.h):
// laid out as flowing text, drawn with QPainter; the window's "token-loss" view (hover and all) and
// `fone analyse token-loss`'s PNG share the layout and the colours.
#pragma once

#include <QColor>
#include <QFont>
#include <QRectF>
#include <QString>
#include <string>
#include <vector>

#include "fone/analysis/token_loss.h"

class QPainter;

namespace fone::plots {

enum class LossColouring {
    difference,  // loss under a minus loss under b: green where a pays less, red where it pays more
    a,           // the loss under a: white (0 nats) to red
    b,           // the loss under b
};
// "a - b", "a", "b" and back; LossColouring::difference for anything else.
LossColouring loss_colouring_from_name(const std::string& name);

// The nats at which the colours saturate.
inline constexpr double kDifferenceSaturation = 3.0;
inline constexpr double kLossSaturation = 8.0;

QColor piece_colour(const analysis::TokenLossComparison& c, std::size_t piece, LossColouring colouring);

// Where each piece goes: boxes in reading order, lines of `line_height` from `top`, at most `width` wide
// (a piece wider than a line gets a line of its own; a "\n" in a piece ends its line).
struct PieceBox {
    std::size_t piece = 0;
    QRectF box;
    QString shown;  // the text drawn (a newline as "↵")
};
struct PieceLayout {
    std::vector<PieceBox> boxes;
    double bottom = 0;  // below the last line
};
PieceLayout layout_pieces(const analysis::TokenLossComparison& c, const QFont& font, double left, double top,
                          double width);
// The box under a point, or -1.
int piece_at(const PieceLayout& layout, const QPointF& point);

// Draws the laid-out pieces: backgrounds by the colouring, numbers bold in a dark frame, text in black.
void paint_pieces(QPainter& painter, const analysis::TokenLossComparison& c, const PieceLayout& layout,
                  LossColouring colouring, const QFont& font);

// What the window's hover shows and the PNG's caption lists: the piece, each run's loss and tokens, and
// for a number its value and what each model writes there.
QString piece_description(const analysis::TokenLossComparison& c, std::size_t piece);
// The key of a colouring: what the colours mean ("green: a (fone) pays less than b (subword) …").
QString colouring_key(const analysis::TokenLossComparison& c, LossColouring colouring);
// One line of figures: each run's mean nats per text token and per number, and where a is lower.
QString comparison_headline(const analysis::TokenLossComparison& c);

// The PNG of `fone analyse token-loss`: a title, the headline and key, then the document (width pixels
// wide, as tall as it needs; at most max_lines lines of it, the rest noted as left out).
void write_token_loss_png(const std::string& path, const analysis::TokenLossComparison& c,
                          LossColouring colouring, int width, int max_lines);

}  // namespace fone::plots
