// A `fone` child process that answers with one JSON line: how the analysis views reach anything that needs
// LibTorch (predict, eval, analyse dump) without linking it.
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <nlohmann/json.hpp>

namespace fone::gui {

// $FONE_CLI, else the `fone` next to this program (as the window's JobRunner finds it).
QString default_fone_program();

// One `fone ...` child whose answer is a JSON line on stdout (predict, eval, analyse). Never blocks: the
// result comes as a signal. Starting a new call kills the one still running (its answer is dropped).
// Errors: the child's own "fone X: error: ..." line, or why it could not start, crashed or timed out.
class FoneCall : public QObject {
    Q_OBJECT
  public:
    explicit FoneCall(QString program = default_fone_program(), QObject* parent = nullptr);
    ~FoneCall() override;
    void set_program(const QString& program) { program_ = program; }
    const QString& program() const { return program_; }
    void set_timeout_ms(int ms) { timeout_ms_ = ms; }

    void start(const QStringList& args);
    void cancel();  // kills a running child; neither signal follows
    bool running() const { return process_ != nullptr; }
    QString command_line() const { return command_; }

  Q_SIGNALS:
    void succeeded(const nlohmann::json& result);  // the last JSON object line on stdout
    void failed(const QString& message);

  private:
    void finish(int exit_code, QProcess::ExitStatus status);
    void stop_process();

    QString program_, command_;
    QProcess* process_ = nullptr;
    QTimer* timer_ = nullptr;
    int timeout_ms_ = 600000;
    int generation_ = 0;
};

}  // namespace fone::gui
