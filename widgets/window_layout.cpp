#include "window_layout.h"

#include <QAbstractScrollArea>
#include <QDockWidget>
#include <QGuiApplication>
#include <QMainWindow>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QTimer>
#include <QWindow>
#include <algorithm>

namespace fone::gui {

namespace {

constexpr int kDefaultWidth = 1400, kDefaultHeight = 900;
// Room the window manager takes round a window (title bar, borders) on a typical desktop.
constexpr int kFrameWidth = 16, kFrameHeight = 48;
const char* const kLayoutsGroup = "layouts";

const QScreen* screen_of(const QWidget* window) {
    return window->screen() ? window->screen() : QGuiApplication::primaryScreen();
}

// A dock's view and the scroll area the window keeps it in (WorkbenchWindow::add_dock), or nulls.
std::pair<QScrollArea*, QWidget*> view_of(QDockWidget* dock) {
    auto* area = qobject_cast<QScrollArea*>(dock->widget());
    return {area, area ? area->widget() : nullptr};
}

}  // namespace

WindowLayout::WindowLayout(QMainWindow* window, std::function<void()> arrange,
                           std::function<void()> size_docks)
    : QObject(window), window_(window), arrange_(std::move(arrange)), size_docks_(std::move(size_docks)) {
    class_ = current_class();
}

QString WindowLayout::screen_class(const QScreen* screen) {
    if (!screen) return {};
    const QSize size = screen->availableGeometry().size();
    return QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
}

QString WindowLayout::current_class() const {
    return screen_class(screen_of(window_));
}

void WindowLayout::fit_to_screen() {
    const QScreen* s = screen_of(window_);
    if (!s) {
        window_->resize(kDefaultWidth, kDefaultHeight);
        return;
    }
    const QRect area = s->availableGeometry();
    const QSize size(std::min(kDefaultWidth, area.width() - kFrameWidth),
                     std::min(kDefaultHeight, area.height() - kFrameHeight));
    window_->resize(size);
    window_->move(area.left() + (area.width() - size.width() - kFrameWidth) / 2,
                  area.top() + (area.height() - size.height() - kFrameHeight) / 2);
}

void WindowLayout::save(QSettings& s) const {
    s.beginGroup(kLayoutsGroup);
    for (auto it = others_.begin(); it != others_.end(); ++it) {
        s.setValue(it.key() + "/geometry", it.value().first);
        s.setValue(it.key() + "/state", it.value().second);
    }
    s.setValue(current_class() + "/geometry", window_->saveGeometry());
    s.setValue(current_class() + "/state", window_->saveState());
    s.endGroup();
    // A layout of the version before screen classes is now this screen's (or was not restored at all).
    s.remove("geometry");
    s.remove("state");
}

bool WindowLayout::restore(QSettings& s) {
    class_ = current_class();
    // Every screen's layout: the one of this screen now, the others should the window move to theirs.
    s.beginGroup(kLayoutsGroup);
    for (const QString& name : s.childGroups())
        others_[name] = {s.value(name + "/geometry").toByteArray(), s.value(name + "/state").toByteArray()};
    s.endGroup();
    auto [geometry, state] = others_.take(class_);
    if (geometry.isEmpty() && s.contains("geometry")) {
        geometry = s.value("geometry").toByteArray();
        state = s.value("state").toByteArray();
    }
    if (geometry.isEmpty() || !window_->restoreGeometry(geometry)) return false;
    const QScreen* scr = screen_of(window_);
    const bool on_screen = scr && scr->availableGeometry()
                                      .adjusted(-kFrameWidth, -kFrameHeight, kFrameWidth, kFrameHeight)
                                      .contains(window_->frameGeometry());
    if (!on_screen || current_class() != class_) {
        // Made for another screen (a version before classes, or the window left this screen): sized afresh,
        // its docks where they start.
        fit_to_screen();
        return false;
    }
    restored_ = !state.isEmpty() && window_->restoreState(state);
    follow_screen_changes();
    return restored_;
}

void WindowLayout::reset() {
    arrange_();
    for (QDockWidget* dock : window_->findChildren<QDockWidget*>())
        if (dock->parentWidget() == window_) {
            dock->setFloating(false);
            dock->show();
        }
    arrange_();  // again: showing a dock that was closed puts it back where it last was
    fit_to_screen();
    if (shown_once_) size_docks_();
    restored_ = false;
}

QStringList WindowLayout::misfits() const {
    QStringList out;
    const QScreen* scr = screen_of(window_);
    if (scr && !scr->availableGeometry()
                    .adjusted(-kFrameWidth, -kFrameHeight, kFrameWidth, kFrameHeight)
                    .contains(window_->frameGeometry()))
        out << QStringLiteral("the window (%1x%2) is larger than the screen (%3)")
                   .arg(window_->width())
                   .arg(window_->height())
                   .arg(screen_class(scr));
    for (QDockWidget* dock : window_->findChildren<QDockWidget*>()) {
        if (!dock->isVisible() || dock->visibleRegion().isEmpty()) continue;  // closed, or behind a tab
        const auto [area, view] = view_of(dock);
        if (!area || !view) continue;
        const int need = view->minimumSizeHint().width(), have = area->viewport()->width();
        if (need > have)
            out << QStringLiteral("%1 needs %2 px of width, its dock gives %3")
                       .arg(dock->windowTitle())
                       .arg(need)
                       .arg(have);
        if (dock->isFloating() && scr && !scr->availableGeometry().intersects(dock->frameGeometry()))
            out << dock->windowTitle() + " floats off the screen";
    }
    return out;
}

void WindowLayout::shown() {
    if (shown_once_) return;
    shown_once_ = true;
    follow_screen_changes();
    if (!restored_) {
        size_docks_();
        return;
    }
    // Once the docks have their sizes (the layout is applied after the show event).
    QTimer::singleShot(0, this, &WindowLayout::check_restored);
}

void WindowLayout::check_restored() {
    const QStringList why = misfits();
    if (why.isEmpty()) return;
    replaced_because_ = "the layout saved for this screen did not fit it (" + why.join("; ") + ")";
    reset();
    Q_EMIT layoutReplaced(replaced_because_);
}

void WindowLayout::follow_screen_changes() {
    QWindow* handle = window_->windowHandle();
    if (!handle || handle->property("fone-follows-screen").toBool()) return;
    handle->setProperty("fone-follows-screen", true);
    connect(handle, &QWindow::screenChanged, this, &WindowLayout::on_screen_changed);
}

void WindowLayout::on_screen_changed(QScreen* screen) {
    const QString to = screen_class(screen);
    if (to.isEmpty() || to == class_) return;
    // The layout of the screen left is kept for it; the new screen's own comes back, else its default.
    others_[class_] = {window_->saveGeometry(), window_->saveState()};
    class_ = to;
    if (others_.contains(to) && window_->restoreState(others_[to].second)) {
        window_->restoreGeometry(others_[to].first);
        QTimer::singleShot(0, this, &WindowLayout::check_restored);
        return;
    }
    reset();
}

}  // namespace fone::gui
