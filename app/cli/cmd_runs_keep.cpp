// fone runs note | tag | diff | mv | rm | restore | trash | archive: keeping runs, finding them again,
// seeing how they differ, and tidying the store without losing anything.
//
//   fone runs note RUN ["text"] [--edit]    print / set / edit ($VISUAL, $EDITOR, vi) the run's notes
//   fone runs tag RUN +baseline -old         add and remove tags; without edits, print them
//   fone runs diff A B [C...] [--all]        the settings and results that differ (--all: everything)
//   fone runs mv RUN NEW                     rename
//   fone runs rm RUN...                      to the store's trash (restorable), never a run that trains
//   fone runs restore ID|RUN                 back from the trash
//   fone runs trash [--empty]                what is in the trash / delete it for good
//   fone runs archive RUN                    keep what the run showed, drop snapshots and the last checkpoint
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cmd_runs.h"
#include "command_support.h"
#include "fone/io/file_read.h"
#include "fone/io/json_files.h"
#include "fone/store/run_diff.h"
#include "fone/store/run_manage.h"
#include "fone/store/run_notes.h"
#include "json_io.h"

namespace fone::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A run of the store that may be changed: resolved, and not broken.
std::string run_dir_of(const RunStore& store, const std::string& name) {
    return store.resolve(name);
}

json notes_line(const std::string& dir, const RunNotes& n) {
    return {{"run", fs::path(dir).filename().string()},
            {"notes", n.text},
            {"tags", n.tags},
            {"updated", n.updated}};
}

// Opens $VISUAL, else $EDITOR, else vi, on a temporary file holding the notes; the text after it exits.
std::string edit_in_editor(const std::string& text) {
    char path[] = "/tmp/fone-notes-XXXXXX.txt";
    const int fd = ::mkstemps(path, 4);
    if (fd < 0) throw RunError("cannot make a temporary file for the editor");
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    struct Remove {
        const char* p;
        ~Remove() { ::unlink(p); }
    } remove{path};
    if (!written) throw RunError(std::string(path) + ": cannot write");
    // The editor variable may hold arguments ("code --wait"): the shell splits it, the path stays one word.
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::execl("/bin/sh", "sh", "-c", "${VISUAL:-${EDITOR:-vi}} \"$1\"", "sh", path,
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) < 0) throw RunError("cannot start the editor");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw RunError("the editor ($VISUAL, $EDITOR or vi) did not exit cleanly: the notes are unchanged");
    const FileRead back = read_regular_file(path, kMaxNotesBytes);
    if (!back.ok()) throw RunError(back.error + ": the notes are unchanged");
    return back.text;
}

void register_note(CLI::App* runs, std::shared_ptr<RunsOptions> o) {
    auto name = std::make_shared<std::string>();
    auto text = std::make_shared<std::string>();
    auto edit = std::make_shared<bool>(false);
    auto* cmd = runs->add_subcommand(
        "note", "A run's notes: print them, set them (\"text\"), or edit them in $VISUAL / $EDITOR (--edit)");
    cmd->fallthrough();
    cmd->add_option("run", *name, "Run name in the store, or a path to a run directory")->required();
    auto* text_opt = cmd->add_option("text", *text, "The new notes (\"\" clears them)");
    cmd->add_flag("--edit", *edit, "Edit the notes in $VISUAL, else $EDITOR, else vi")->excludes(text_opt);
    cmd->callback([o, name, text, edit, text_opt] {
        run_command("runs note", [&] {
            const std::string dir = run_dir_of(open_store(o->runs_dir, false), *name);
            RunNotes n = read_run_notes(dir);
            if (!*edit && text_opt->count() == 0) {
                std::cout << n.text << (n.text.empty() || n.text.back() == '\n' ? "" : "\n");
                return;
            }
            n.text = *edit ? edit_in_editor(n.text) : *text;
            write_run_notes(dir, n);
            print_json_line(std::cout, notes_line(dir, read_run_notes(dir)));
        });
    });
}

void register_tag(CLI::App* runs, std::shared_ptr<RunsOptions> o) {
    auto name = std::make_shared<std::string>();
    auto* cmd = runs->add_subcommand("tag",
                                     "A run's tags: +TAG adds, -TAG removes (fone runs tag RUN +baseline "
                                     "-old); without edits, prints them");
    cmd->add_option("run", *name, "Run name in the store, or a path to a run directory")->required();
    // "-old" must reach the command as an edit, not as an unknown option: everything after RUN is kept (and
    // not passed up to `runs`: give --runs-dir before `tag`).
    cmd->prefix_command();
    cmd->footer("Tags: 1 to 40 bytes, no spaces or commas; the window filters them with tag:NAME.");
    cmd->callback([o, name, cmd] {
        run_command(
            "runs tag",
            [&] {
                const std::string dir = run_dir_of(open_store(o->runs_dir, false), *name);
                RunNotes n = read_run_notes(dir);
                const std::vector<std::string> edits = cmd->remaining();
                if (!edits.empty()) {
                    n.tags = apply_tag_edits(n.tags, edits);
                    write_run_notes(dir, n);
                    n = read_run_notes(dir);
                }
                print_json_line(std::cout, notes_line(dir, n));
            },
            2);
    });
}

// ---- diff ----------------------------------------------------------------------------------------------

std::string clipped(std::string s, std::size_t max) {
    for (char& c : s)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (s.size() > max) s = s.substr(0, max - 3) + "...";
    return s;
}

// The diff as aligned text: a heading per section, a row per key, a column per run.
std::string diff_table(const RunDiff& d, bool all) {
    std::vector<std::vector<std::string>> lines;
    std::vector<std::string> head = {""};
    head.insert(head.end(), d.runs.begin(), d.runs.end());
    lines.push_back(head);
    for (const DiffSection section : {DiffSection::setting, DiffSection::result}) {
        const bool settings = section == DiffSection::setting;
        std::size_t total = 0;
        for (const DiffRow& r : d.rows)
            total += r.section == section;
        lines.push_back({std::string(settings ? "settings" : "results") + " (" +
                         std::to_string(d.differing(section)) + " of " + std::to_string(total) + " differ)"});
        for (const DiffRow& r : d.rows) {
            if (r.section != section || (!all && !r.differs)) continue;
            std::vector<std::string> line = {(r.differs ? "  " : "= ") + r.key};
            for (const json& v : r.values)
                line.push_back(v.is_null() ? "-" : clipped(diff_cell_text(v), 40));
            lines.push_back(line);
        }
    }
    std::vector<std::size_t> width(head.size(), 0);
    for (const auto& l : lines)
        if (l.size() == head.size())
            for (std::size_t c = 0; c < l.size(); ++c)
                width[c] = std::max(width[c], l[c].size());
    std::string out;
    for (const auto& l : lines) {
        std::string text;
        for (std::size_t c = 0; c < l.size(); ++c) {
            text += l[c];
            if (c + 1 < l.size()) text.append(width[c] - l[c].size() + 2, ' ');
        }
        out += text + "\n";
    }
    if (!all) out += "(rows that are equal are left out: --all shows them)\n";
    return out;
}

json diff_json(const RunDiff& d, bool all) {
    json rows = json::array();
    for (const DiffRow& r : d.rows)
        if (all || r.differs)
            rows.push_back({{"section", r.section == DiffSection::setting ? "setting" : "result"},
                            {"key", r.key},
                            {"values", r.values},
                            {"differs", r.differs}});
    return {{"runs", d.runs},
            {"rows", rows},
            {"differing_settings", d.differing(DiffSection::setting)},
            {"differing_results", d.differing(DiffSection::result)}};
}

void register_diff(CLI::App* runs, std::shared_ptr<RunsOptions> o) {
    auto names = std::make_shared<std::vector<std::string>>();
    auto all = std::make_shared<bool>(false);
    auto format = std::make_shared<std::string>("table");
    auto* cmd = runs->add_subcommand(
        "diff",
        "The settings (resolved: a default and an explicit equal value are the same) and results that "
        "differ between runs");
    cmd->fallthrough();
    cmd->add_option("runs", *names, "Two runs or more (names in the store, or paths)")
        ->required()
        ->expected(2, -1);
    cmd->add_flag("--all", *all, "Every setting and result, the equal ones too (marked '=')");
    cmd->add_option("--format", *format, "table (aligned columns) or json (one object)")
        ->check(CLI::IsMember({"table", "json"}))
        ->capture_default_str();
    cmd->callback([o, names, all, format] {
        if (names->size() < 2) fail("runs diff", "name two runs or more", 2);
        run_command("runs diff", [&] {
            const RunStore store = open_store(o->runs_dir, false);
            std::vector<DiffRun> chosen;
            for (const std::string& n : *names) {
                const RunInfo info = store.info(store.resolve(n));
                if (info.status == kStatusBroken) throw RunError(info.message);
                chosen.push_back({info.name, info.config, info.summary});
            }
            const RunDiff d = diff_runs(chosen);
            if (*format == "json")
                print_json_line(std::cout, diff_json(d, *all));
            else
                std::cout << diff_table(d, *all) << std::flush;
        });
    });
}

// ---- mv, rm, restore, trash, archive -------------------------------------------------------------------

void register_mv(CLI::App* runs, std::shared_ptr<RunsOptions> o) {
    auto name = std::make_shared<std::string>();
    auto to = std::make_shared<std::string>();
    auto* cmd = runs->add_subcommand("mv", "Rename a run (not one that is training)");
    cmd->fallthrough();
    cmd->add_option("run", *name, "Run name in the store")->required();
    cmd->add_option("new_name", *to, "Its new name")->required();
    cmd->callback([o, name, to] {
        run_command("runs mv", [&] {
            const RunStore store = open_store(o->runs_dir, false);
            const std::string dir = rename_run(store, store.resolve(*name), *to);
            print_json_line(std::cout, {{"run", *to}, {"from", *name}, {"dir", dir}});
        });
    });
}

void register_rm(CLI::App* runs, std::shared_ptr<RunsOptions> o) {
    auto names = std::make_shared<std::vector<std::string>>();
    auto* cmd = runs->add_subcommand(
        "rm",
        "Move runs to the store's trash (fone runs restore brings one back); a training run is refused");
    cmd->fallthrough();
    cmd->add_option("runs", *names, "Run names in the store")->required();
    cmd->callback([o, names] {
        run_command("runs rm", [&] {
            const RunStore store = open_store(o->runs_dir, false);
            for (const std::string& n : *names) {
                const TrashedRun t = trash_run(store, store.resolve(n));
                print_json_line(std::cout, {{"run", t.name}, {"trash_id", t.id}, {"trashed", t.trashed}});
                std::cerr << "fone runs rm: " << t.name
                          << " is in the trash; restore with: fone runs restore " << t.id << std::endl;
            }
        });
    });
}

void register_restore(CLI::App* runs, std::shared_ptr<RunsOptions> o) {
    auto id = std::make_shared<std::string>();
    auto* cmd =
        runs->add_subcommand("restore", "Bring a run back from the trash (a taken name gets -2, -3, ...)");
    cmd->fallthrough();
    cmd->add_option("id", *id, "Its id in the trash (fone runs trash), or its name: the latest one")
        ->required();
    cmd->callback([o, id] {
        run_command("runs restore", [&] {
            const RunStore store = open_store(o->runs_dir, false);
            const std::string dir = restore_run(store, *id);
            const std::string name = fs::path(dir).filename().string();
            print_json_line(std::cout, {{"run", name}, {"dir", dir}});
        });
    });
}

void register_trash(CLI::App* runs, std::shared_ptr<RunsOptions> o) {
    auto empty = std::make_shared<bool>(false);
    auto* cmd = runs->add_subcommand("trash",
                                     "The runs in the store's trash, one JSON object each; --empty "
                                     "deletes them for good");
    cmd->fallthrough();
    cmd->add_flag("--empty", *empty, "Delete every run in the trash (this cannot be undone)");
    cmd->callback([o, empty] {
        run_command("runs trash", [&] {
            const RunStore store = open_store(o->runs_dir, false);
            if (*empty) {
                const std::uint64_t freed = empty_trash(store);
                print_json_line(std::cout, {{"freed_bytes", freed}, {"freed", bytes_text(freed)}});
                return;
            }
            for (const TrashedRun& t : list_trash(store))
                print_json_line(std::cout, {{"trash_id", t.id},
                                            {"run", t.name},
                                            {"trashed", t.trashed},
                                            {"bytes", disk_bytes(t.dir)}});
        });
    });
}

void register_archive(CLI::App* runs, std::shared_ptr<RunsOptions> o) {
    auto name = std::make_shared<std::string>();
    auto* cmd = runs->add_subcommand(
        "archive",
        "Keep a finished run's config, metrics, summary, notes and best checkpoint; drop its snapshots, "
        "last checkpoint and the rest, and say how much that freed");
    cmd->fallthrough();
    cmd->add_option("run", *name, "Run name in the store, or a path to a run directory")->required();
    cmd->callback([o, name] {
        run_command("runs archive", [&] {
            const RunStore store = open_store(o->runs_dir, false);
            const std::string dir = store.resolve(*name);
            const ArchiveResult r = archive_run(dir);
            print_json_line(std::cout, {{"run", fs::path(dir).filename().string()},
                                        {"removed", r.removed},
                                        {"freed_bytes", r.freed_bytes},
                                        {"freed", bytes_text(r.freed_bytes)},
                                        {"kept_bytes", r.kept_bytes}});
        });
    });
}

}  // namespace

void add_run_keeping_commands(CLI::App* runs, std::shared_ptr<RunsOptions> o) {
    register_note(runs, o);
    register_tag(runs, o);
    register_diff(runs, o);
    register_mv(runs, o);
    register_rm(runs, o);
    register_restore(runs, o);
    register_trash(runs, o);
    register_archive(runs, o);
    add_run_sharing_commands(runs, o);
}

}  // namespace fone::cli
