// The encoding zoo (a tab of the playground, and the workbench view "zoo"): one number under every
// encoding the workbench trains, one row each: FoNE's clocks, BitTokens' bits, xVal's scalar, digits,
// subword chunks left to right and right to left, NumeroLogic. Each row shows the tokens the model reads
// for the number, their count, and (one-token methods) the vector that enters beside the [NUM] token as a
// strip of cells, blue for negative and red for positive entries (hover a cell for what it is). The
// encodings are computed by core/ (fone/numbers/number_encodings.h), as `fone tokenize --all` prints them.
#pragma once

#include <QWidget>
#include <vector>

#include "fone/numbers/number_encodings.h"

class QLabel;
class QLineEdit;
class QTableWidget;

namespace fone::gui {

class EncodingZoo : public QWidget {
    Q_OBJECT
    Q_PROPERTY(QString number READ number WRITE set_number)
  public:
    explicit EncodingZoo(QWidget* parent = nullptr);

    // Shows `text` (a number as Decimal::parse reads it, "1,234.5" and "$3" too) under every encoding;
    // text that is not one number leaves the rows empty and says why.
    void set_number(const QString& text);
    QString number() const;
    const std::vector<NumberEncoding>& encodings() const { return encodings_; }
    QTableWidget* table() const { return table_; }
    QString problem() const;  // why the rows are empty; "" when they are not

  Q_SIGNALS:
    void encodingsChanged();

  private:
    void show_encodings();

    QLineEdit* number_;
    QLabel* note_;
    QTableWidget* table_;
    std::vector<NumberEncoding> encodings_;
};

}  // namespace fone::gui
