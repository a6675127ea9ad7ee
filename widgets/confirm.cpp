#include "confirm.h"

#include <QMessageBox>
#include <QPushButton>

namespace fone::gui {

namespace {
std::function<bool(const QString&, const QString&)>& answer() {
    static std::function<bool(const QString&, const QString&)> f;
    return f;
}
}  // namespace

bool confirm(QWidget* parent, const QString& title, const QString& text, const QString& yes,
             const QString& no) {
    if (answer()) return answer()(title, text);
    QMessageBox box(QMessageBox::Question, title, text, QMessageBox::NoButton, parent);
    QPushButton* yes_button = box.addButton(yes, QMessageBox::AcceptRole);
    box.setDefaultButton(box.addButton(no, QMessageBox::RejectRole));
    box.exec();
    return box.clickedButton() == yes_button;
}

void set_confirm_answer(std::function<bool(const QString& title, const QString& text)> f) {
    answer() = std::move(f);
}

}  // namespace fone::gui
