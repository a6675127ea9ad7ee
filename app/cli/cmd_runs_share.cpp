// fone runs pack | unpack: one run as one file to send a colleague (fone/store/run_pack.h).
//
//   fone runs pack RUN [--with snapshots] [-o RUN.fonerun]   config, metrics, summary, notes, tags, the final
//                                                            and best checkpoints, a manifest of digests
//   fone runs unpack FILE [--name NAME]                      into the store, checked; a taken name gets -2
#include <filesystem>
#include <iostream>

#include "cmd_runs.h"
#include "command_support.h"
#include "fone/io/file_read.h"
#include "fone/store/run_pack.h"
#include "json_io.h"

namespace fone::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void register_pack(CLI::App* runs, std::shared_ptr<RunsOptions> o) {
    auto name = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    auto with = std::make_shared<std::vector<std::string>>();
    auto* cmd = runs->add_subcommand(
        "pack",
        "One run as one file to share (.fonerun: a gzip'd tar with a manifest of SHA-256 digests): "
        "config, metrics, summary, notes, tags, the best and last checkpoints");
    cmd->fallthrough();
    cmd->add_option("run", *name, "Run name in the store, or a path to a run directory")->required();
    cmd->add_option("-o,--out", *out, "The file to write (default: RUN.fonerun in the current folder)");
    cmd->add_option("--with", *with,
                    "Also pack: snapshots (the representation snapshots, often most of a run)")
        ->check(CLI::IsMember({"snapshots"}));
    cmd->callback([o, name, out, with] {
        run_command("runs pack", [&] {
            const RunStore store = open_store(o->runs_dir, false);
            const std::string dir = store.resolve(*name);
            const std::string run = fs::path(dir).filename().string();
            PackOptions options;
            options.with_snapshots = std::find(with->begin(), with->end(), "snapshots") != with->end();
            const std::string file = out->empty() ? run + kPackExtension : *out;
            const PackResult r = pack_run(dir, file, options);
            print_json_line(std::cout, {{"run", run},
                                        {"file", r.file},
                                        {"bytes", r.file_bytes},
                                        {"run_bytes", r.run_bytes},
                                        {"members", r.members},
                                        {"size", bytes_text(r.file_bytes)}});
        });
    });
}

void register_unpack(CLI::App* runs, std::shared_ptr<RunsOptions> o) {
    auto file = std::make_shared<std::string>();
    auto name = std::make_shared<std::string>();
    auto* cmd = runs->add_subcommand(
        "unpack",
        "A .fonerun into the store as a new run, checked before it appears (names, types, sizes, "
        "SHA-256 digests); a name that is taken gets -2, -3, ...");
    cmd->fallthrough();
    cmd->add_option("file", *file, "The .fonerun file")->required();
    cmd->add_option("--name", *name, "The run's name in this store (default: the name it was packed under)");
    cmd->callback([o, file, name] {
        run_command("runs unpack", [&] {
            const RunStore store = open_store(o->runs_dir, true);
            const UnpackResult r = unpack_run(store, *file, *name);
            json line = {{"run", r.name},
                         {"dir", r.dir},
                         {"run_bytes", r.run_bytes},
                         {"made_by", r.manifest.value("made_by", json())}};
            if (r.name != r.wanted_name) {
                line["renamed_from"] = r.wanted_name;
                std::cerr << "fone runs unpack: a run named " << r.wanted_name << " exists: unpacked as "
                          << r.name << std::endl;
            }
            print_json_line(std::cout, line);
        });
    });
}

}  // namespace

void add_run_sharing_commands(CLI::App* runs, std::shared_ptr<RunsOptions> o) {
    register_pack(runs, o);
    register_unpack(runs, o);
}

}  // namespace fone::cli
