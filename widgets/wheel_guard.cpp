#include "wheel_guard.h"

#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QScrollBar>
#include <QWheelEvent>

namespace fone::gui {

bool wheel_changes_value(const QWidget* widget) {
    if (!widget || qobject_cast<const QScrollBar*>(widget)) return false;
    return qobject_cast<const QComboBox*>(widget) || qobject_cast<const QAbstractSpinBox*>(widget) ||
           qobject_cast<const QAbstractSlider*>(widget);
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
    if (!watched->isWidgetType()) return false;
    auto* widget = static_cast<QWidget*>(watched);
    if (event->type() == QEvent::Polish && wheel_changes_value(widget)) {
        // Without wheel focus: a wheel turn must not take the focus (and with it the right to change).
        if ((widget->focusPolicy() & Qt::WheelFocus) == Qt::WheelFocus)
            widget->setFocusPolicy(Qt::StrongFocus);
        return false;
    }
    if (event->type() != QEvent::Wheel || widget->hasFocus() || !wheel_changes_value(widget)) return false;
    // A spin box's line edit has the focus, not the spin box: the field as a whole is what counts.
    if (QWidget* focus = QApplication::focusWidget(); focus && widget->isAncestorOf(focus)) return false;
    // The page gets the turn: the nearest scroll area round the field scrolls as if the field were not
    // there (a synthesized event is not passed up by Qt, so it goes to the scroll area's viewport itself).
    for (QWidget* up = widget->parentWidget(); up; up = up->parentWidget())
        if (auto* area = qobject_cast<QAbstractScrollArea*>(up)) {
            auto* wheel = static_cast<QWheelEvent*>(event);
            const QPointF at = area->viewport()->mapFromGlobal(wheel->globalPosition());
            QWheelEvent copy(at, wheel->globalPosition(), wheel->pixelDelta(), wheel->angleDelta(),
                             wheel->buttons(), wheel->modifiers(), wheel->phase(), wheel->inverted(),
                             wheel->source());
            QApplication::sendEvent(area->viewport(), &copy);
            break;
        }
    return true;
}

void install_wheel_guard() {
    static WheelGuard* guard = nullptr;
    if (guard || !qApp) return;
    guard = new WheelGuard(qApp);
    qApp->installEventFilter(guard);
}

}  // namespace fone::gui
