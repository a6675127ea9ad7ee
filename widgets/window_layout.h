// The window's layout (its geometry and where its docks are), one per screen: a layout is saved under the
// size class of the screen it was made on ("1920x1080", the screen's available area) and restored only on
// a screen of that class, so a layout prepared at a 1920 x 1080 desk is not forced onto a 1280 x 720
// projector (docks cut, sideways scroll bars, buttons off the screen): there the projector's own layout,
// or the default for that screen, opens. A restored layout is checked once the window is shown (the
// window on its screen, no view needing more width than its dock gives it) and replaced by the default
// when it does not fit. Moving the window to a screen of another class keeps the old screen's layout and
// takes the new one's. View → Reset layout returns to the default for the screen the window is on.
#pragma once

#include <QByteArray>
#include <QMap>
#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>

class QMainWindow;
class QScreen;
class QSettings;

namespace fone::gui {

class WindowLayout : public QObject {
    Q_OBJECT
  public:
    // arrange: places every dock as the default layout has it for the window's screen (it may be called
    // again, on docks already placed); size_docks: gives the docks their first proportions once the window
    // has its size.
    WindowLayout(QMainWindow* window, std::function<void()> arrange, std::function<void()> size_docks);

    // "1280x720": the size class of a screen (its available area, in logical pixels); "" for none.
    static QString screen_class(const QScreen* screen);
    QString current_class() const;
    // Sizes and places the window for the available area of its screen (1400 x 900 at most).
    void fit_to_screen();
    // The layout of the screen the window is on, into the settings group open in s; restore reads the one
    // of this screen's class (a layout saved by a version without classes counts as this screen's when its
    // geometry fits it). True when a saved layout was restored (it is checked once the window is shown).
    void save(QSettings& s) const;
    bool restore(QSettings& s);
    // The default layout for this screen: the docks where they start, every view shown, the first sizes.
    void reset();
    // Why the layout as it stands does not fit the screen ("" entries none): the window past the screen's
    // edge, a view that needs more width than its dock has (a sideways scroll bar).
    QStringList misfits() const;
    // The window's showEvent: the first sizes, or the check of a restored layout (once laid out).
    void shown();
    // The reason the last restored layout was replaced by the default ("" when none was).
    const QString& replaced_because() const { return replaced_because_; }

  Q_SIGNALS:
    void layoutReplaced(const QString& why);

  private:
    void follow_screen_changes();
    void on_screen_changed(QScreen* screen);
    void check_restored();

    QMainWindow* window_;
    std::function<void()> arrange_, size_docks_;
    bool shown_once_ = false, restored_ = false;
    QString class_;  // the class of the screen the window is on (the one its layout belongs to)
    // Layouts of other screen classes met while the window is open: (class, geometry, state).
    QMap<QString, std::pair<QByteArray, QByteArray>> others_;
    QString replaced_because_;
};

}  // namespace fone::gui
