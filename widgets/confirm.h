// A yes/no question to the user (a large sweep, quitting while runs train), and a way for tests to answer it
// without a dialog.
#pragma once

#include <QString>
#include <functional>

class QWidget;

namespace fone::gui {

// A modal question; true for `yes`.
bool confirm(QWidget* parent, const QString& title, const QString& text, const QString& yes,
             const QString& no);

// Tests: confirm() asks `answer` instead of showing a dialog (an empty function shows dialogs again).
void set_confirm_answer(std::function<bool(const QString& title, const QString& text)> answer);

}  // namespace fone::gui
