// The mouse wheel scrolls the page; it changes a setting only in the field that has the keyboard focus.
// Qt's combo boxes, spin boxes and sliders take a wheel turn over them as a change of value, and spin boxes
// take the focus from it too: scrolling down the Launch form switched Schedule from default to constant
// without a word (a different experiment from the one set), and in Welcome it moved "turn at". The guard,
// an event filter on the application, gives every such field a focus policy without wheel focus as it is
// polished, and hands a wheel turn over a field without the focus to the field's parent, so the page
// scrolls instead. Installed once (install_wheel_guard) by the window; idempotent.
#pragma once

#include <QObject>

class QWidget;

namespace fone::gui {

// Whether a wheel turn over this widget would change a setting (combo box, spin box, slider; not a scroll
// bar, whose job it is).
bool wheel_changes_value(const QWidget* widget);

class WheelGuard : public QObject {
    Q_OBJECT
  public:
    using QObject::QObject;

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};

// Installs one guard on the application (a second call does nothing).
void install_wheel_guard();

}  // namespace fone::gui
