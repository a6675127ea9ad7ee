// Keeping, comparing and sharing runs (issue 43), in process and without LibTorch: notes and tags, what
// differs (resolved settings), rename / trash / restore / archive, the all-metrics export, and .fonerun
// packs: a round trip, and a hostile set (path escapes, links, devices, duplicates, a bomb, a truncated
// file, a digest mismatch, a 10^6-member manifest) each refused with one line, the store left as it was.
#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <QtTest>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "fone/io/safetensors.h"
#include "fone/store/run_diff.h"
#include "fone/store/run_export.h"
#include "fone/store/run_lock.h"
#include "fone/store/run_manage.h"
#include "fone/store/run_notes.h"
#include "fone/store/run_pack.h"
#include "fone/store/run_store.h"
#include "fone/store/train_config.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void spit(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

template <typename F>
std::string run_error(F&& f) {
    try {
        f();
    } catch (const fone::RunError& e) {
        return e.what();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

// Every path under root (hidden ones too) with its size: "the store as it was".
std::set<std::string> tree(const std::string& root) {
    std::set<std::string> out;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code e2;
        out.insert(fs::relative(it->path(), root).string() + ":" +
                   (it->is_regular_file(e2) ? std::to_string(it->file_size(e2)) : "dir"));
    }
    return out;
}

// A finished run made by hand: a real config (TrainConfig's), metrics, a summary and a small checkpoint.
std::string make_run(fone::RunStore& store, const std::string& name, const json& changes = json::object()) {
    json config = fone::TrainConfig().to_json();
    config.merge_patch(changes);
    config["versions"] = {{"fone", "test"}};
    const std::string dir = store.create_run(name, config);
    fone::write_status(dir, fone::kStatusFinished, "trained");
    spit(dir + "/metrics.jsonl",
         "{\"event\":\"progress\",\"step\":1,\"loss\":2.5}\n"
         "{\"event\":\"eval\",\"step\":2,\"exact_match\":0.5}\n");
    fone::write_json_atomic(dir + "/summary.json", {{"final", {{"exact_match", 0.5}}}, {"step", 2}});
    const std::vector<float> w = {1.0f, 2.0f, 3.0f, 4.0f};
    fone::safetensors::write(dir + "/checkpoint-best.safetensors",
                             {{"w", fone::safetensors::Dtype::F32, {2, 2}, w.data(), w.size() * 4}});
    fone::safetensors::write(dir + "/checkpoint-last.safetensors",
                             {{"w", fone::safetensors::Dtype::F32, {2, 2}, w.data(), w.size() * 4}});
    fs::create_directories(dir + "/snapshots");
    fone::safetensors::write(dir + "/snapshots/step-00000002.safetensors",
                             {{"h", fone::safetensors::Dtype::F32, {4}, w.data(), w.size() * 4}});
    return dir;
}

// ---- Hand-made archives, written with libarchive directly (not through the code under test) -----------

struct Entry {
    Entry(std::string n, std::string d, unsigned t = AE_IFREG, std::string l = "", bool hard = false,
          long long s = -1)
        : name(std::move(n)), data(std::move(d)), type(t), link(std::move(l)), hardlink(hard), size(s) {}
    std::string name;
    std::string data;
    unsigned type;
    std::string link;  // a symbolic link's target, or a hard link's source
    bool hardlink;
    long long size;  // the header's size (-1: data's)
};

std::string sha256_of(const std::string& data) {
    // The manifest's digests are checked by the code under test; these come from the system's sha256sum.
    const std::string tmp = QDir::tempPath().toStdString() + "/fone-sha-" + std::to_string(::getpid());
    spit(tmp, data);
    QProcess p;
    p.start("sha256sum", {QString::fromStdString(tmp)});
    p.waitForFinished();
    fs::remove(tmp);
    return p.readAllStandardOutput().left(64).toStdString();
}

json member(const std::string& name, const std::string& data) {
    return {{"name", name}, {"size", data.size()}, {"sha256", sha256_of(data)}};
}

json manifest(const json& members) {
    return {{"format", "fonerun-1"}, {"run", "received"}, {"members", members}};
}

void write_tar_gz(const std::string& path, const std::vector<Entry>& entries) {
    archive* a = archive_write_new();
    archive_write_add_filter_gzip(a);
    archive_write_set_format_pax_restricted(a);
    QCOMPARE(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK);
    for (const Entry& e : entries) {
        archive_entry* h = archive_entry_new();
        archive_entry_set_pathname(h, e.name.c_str());
        archive_entry_set_filetype(h, e.type);
        archive_entry_set_perm(h, 0644);
        if (e.type == AE_IFLNK) archive_entry_set_symlink(h, e.link.c_str());
        if (e.hardlink) archive_entry_set_hardlink(h, e.link.c_str());
        if (e.type == AE_IFCHR) archive_entry_set_rdev(h, makedev(1, 3));
        archive_entry_set_size(h, e.size >= 0 ? e.size : static_cast<long long>(e.data.size()));
        archive_write_header(a, h);
        if (!e.data.empty()) archive_write_data(a, e.data.data(), e.data.size());
        archive_entry_free(h);
    }
    archive_write_close(a);
    archive_write_free(a);
}

const std::string kConfig = "{\"task\":\"dec-add\"}";
const std::string kMetrics = "{\"event\":\"eval\",\"step\":1}\n";

// A well-formed pack of config.json and metrics.jsonl, with the given manifest members and entries.
std::vector<Entry> with_manifest(const json& m, std::vector<Entry> rest) {
    rest.insert(rest.begin(), Entry{fone::kPackManifest, m.dump()});
    return rest;
}

}  // namespace

class TestRunKeep : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir tmp_;
    std::string root(const std::string& name) { return tmp_.path().toStdString() + "/" + name; }
    // Unpacks a hand-made pack into a fresh store: the refusal, and the store checked unchanged.
    std::string refused(const std::string& label, const std::vector<Entry>& entries) {
        const std::string file = root(label + ".fonerun");
        write_tar_gz(file, entries);
        fone::RunStore store(root("hostile-" + label));
        make_run(store, "mine");
        const auto before = tree(store.root());
        const std::string error = run_error([&] { fone::unpack_run(store, file); });
        qInfo().noquote() << QString::fromStdString(label + ": " + (error.empty() ? "accepted" : error));
        if (error.empty()) return error;  // accepted: a new run, as it should be
        if (tree(store.root()) != before) return "STORE CHANGED: " + error;
        if (error.find('\n') != std::string::npos) return "MORE THAN ONE LINE: " + error;
        return error;
    }

  private Q_SLOTS:
    void notes_and_tags_are_one_atomic_file() {
        fone::RunStore store(root("notes"));
        const std::string dir = make_run(store, "a");
        QVERIFY(fone::read_run_notes(dir).text.empty());
        fone::RunNotes n;
        n.text = "baseline for the paper's figure 3\nsecond line";
        n.tags = fone::apply_tag_edits({}, {"+baseline", "fig3", "+baseline"});
        QCOMPARE(n.tags, (std::vector<std::string>{"baseline", "fig3"}));
        fone::write_run_notes(dir, n);
        const fone::RunNotes back = fone::read_run_notes(dir);
        QCOMPARE(back.text, n.text);
        QCOMPARE(back.tags, n.tags);
        QVERIFY(!back.updated.empty());
        QCOMPARE(fone::apply_tag_edits(back.tags, {"-baseline", "-absent"}),
                 std::vector<std::string>{"fig3"});
        // The listing carries them.
        QCOMPARE(store.info(dir).tags, n.tags);
        // Bad tags and notes are refused, and nothing is written.
        QVERIFY(run_error([] { fone::apply_tag_edits({}, {"+two words"}); }).find("spaces") !=
                std::string::npos);
        QVERIFY(run_error([] { fone::apply_tag_edits({}, {"+"}); }).find("empty") != std::string::npos);
        fone::RunNotes big;
        big.text.assign(fone::kMaxNotesBytes + 1, 'x');
        QVERIFY(run_error([&] { fone::write_run_notes(dir, big); }).find("64 KB") != std::string::npos);
        QCOMPARE(fone::read_run_notes(dir).text, n.text);
        QCOMPARE(fone::split_tags("a, b  a,c"), (std::vector<std::string>{"a", "b", "c"}));
        // A notes.json that is a link is never written through.
        const std::string victim = root("victim.txt");
        spit(victim, "keep");
        fs::remove(dir + "/notes.json");
        fs::create_symlink(victim, dir + "/notes.json");
        QVERIFY(run_error([&] { fone::write_run_notes(dir, n); }).find("link") != std::string::npos);
        QCOMPARE(slurp(victim), std::string("keep"));
        // A damaged notes.json is named, and never breaks the run's listing.
        fs::remove(dir + "/notes.json");
        spit(dir + "/notes.json", "{\"tags\": 5}");
        QVERIFY(run_error([&] { fone::read_run_notes(dir); }).find("notes.json") != std::string::npos);
        QCOMPARE(store.info(dir).status, std::string(fone::kStatusFinished));
    }

    void diff_compares_resolved_settings() {
        fone::RunStore store(root("diff"));
        // b states lr explicitly at its default value; c lacks a key (an older run) whose default is equal.
        const std::string a = make_run(store, "a");
        const std::string b = make_run(store, "b", {{"lr", fone::TrainConfig().lr}, {"train_size", 6400}});
        const std::string c = make_run(store, "c");
        json cfg = fone::read_json_file(c + "/config.json");
        cfg.erase("text_context");
        cfg["model"].erase("hidden");  // a nested default, absent
        fone::write_json_atomic(c + "/config.json", cfg);
        fone::write_json_atomic(b + "/summary.json", {{"final", {{"exact_match", 0.75}}}, {"step", 2.0}});
        std::vector<fone::DiffRun> runs;
        for (const std::string& d : {a, b, c}) {
            const fone::RunInfo i = store.info(d);
            runs.push_back({i.name, i.config, i.summary});
        }
        const fone::RunDiff d = fone::diff_runs(runs);
        std::map<std::string, const fone::DiffRow*> by_key;
        for (const auto& r : d.rows)
            if (r.differs) by_key[r.key] = &r;
        // Only train_size differs among the settings; the results: final.exact_match (step 2 == 2.0).
        QCOMPARE(d.differing(fone::DiffSection::setting), std::size_t{1});
        QVERIFY(by_key.count("train_size"));
        QCOMPARE(by_key["train_size"]->values[1].get<int>(), 6400);
        QCOMPARE(d.differing(fone::DiffSection::result), std::size_t{1});
        QVERIFY(by_key.count("final.exact_match"));
        QCOMPARE(fone::differing_settings(runs), std::vector<std::string>{"train_size"});
    }

    void rename_trash_restore_and_refuse_a_live_run() {
        fone::RunStore store(root("manage"));
        const std::string a = make_run(store, "a");
        make_run(store, "b");
        QVERIFY(run_error([&] { fone::rename_run(store, a, "b"); }).find("exists") != std::string::npos);
        QVERIFY(run_error([&] { fone::rename_run(store, a, "../x"); }).find("'/'") != std::string::npos);
        const std::string moved = fone::rename_run(store, a, "a2");
        QVERIFY(fs::is_directory(moved) && !fs::exists(a));
        fone::write_run_notes(moved, {"kept", {"t"}, ""});
        const fone::TrashedRun t = fone::trash_run(store, moved);
        QVERIFY(!fs::exists(moved));
        QCOMPARE(store.list().size(), std::size_t{1});  // the trash is hidden
        QCOMPARE(fone::list_trash(store).size(), std::size_t{1});
        QCOMPARE(t.name, std::string("a2"));
        make_run(store, "a2");  // the name is taken again meanwhile: restored as a2-2
        const std::string back = fone::restore_run(store, "a2");
        QCOMPARE(fs::path(back).filename().string(), std::string("a2-2"));
        QCOMPARE(fone::read_run_notes(back).text, std::string("kept"));
        QVERIFY(fone::list_trash(store).empty());
        // A run being trained (its lock held) is never moved.
        const fone::RunLock lock = fone::RunLock::acquire(back);
        QVERIFY(run_error([&] { fone::trash_run(store, back); }).find("trained") != std::string::npos);
        QVERIFY(run_error([&] { fone::rename_run(store, back, "c"); }).find("trained") != std::string::npos);
        QVERIFY(fs::is_directory(back));
    }

    void archive_keeps_what_the_run_showed() {
        fone::RunStore store(root("archive"));
        const std::string dir = make_run(store, "a");
        fone::write_run_notes(dir, {"why", {}, ""});
        spit(dir + "/stray.tmp", std::string(1000, 'x'));
        const std::uint64_t doomed = fs::file_size(dir + "/checkpoint-last.safetensors") +
                                     fs::file_size(dir + "/snapshots/step-00000002.safetensors") + 1000;
        const fone::ArchiveResult r = fone::archive_run(dir);
        QCOMPARE(r.removed,
                 (std::vector<std::string>{"checkpoint-last.safetensors", "snapshots/", "stray.tmp"}));
        QCOMPARE(r.freed_bytes, doomed);
        QCOMPARE(fone::read_json_file(dir + "/archived.json")["freed_bytes"].get<std::uint64_t>(), doomed);
        for (const char* kept : {"config.json", "metrics.jsonl", "summary.json", "notes.json",
                                 "checkpoint-best.safetensors", "status.json", "archived.json"})
            QVERIFY2(fs::exists(dir + "/" + kept), kept);
        QCOMPARE(store.info(dir).status, std::string(fone::kStatusFinished));
        // Only a finished run: one that can resume needs its last checkpoint.
        const std::string stopped = make_run(store, "s");
        fone::write_status(stopped, fone::kStatusStopped);
        QVERIFY(run_error([&] { fone::archive_run(stopped); }).find("only a finished run") !=
                std::string::npos);
        QVERIFY(fs::exists(stopped + "/checkpoint-last.safetensors"));
    }

    void all_metrics_in_one_table() {
        fone::RunStore store(root("export"));
        make_run(store, "a");
        make_run(store, "b", {{"train_size", 6400}});
        std::ostringstream csv;
        const fone::MetricsExport r =
            fone::export_all_metrics(store.list(), fone::MetricsExportFormat::csv, csv);
        QCOMPARE(r.runs, std::size_t{2});
        QCOMPARE(r.rows, std::size_t{4});
        QCOMPARE(QString::fromStdString(csv.str()),
                 QString::fromStdString("run,config.train_size,event,loss,step,exact_match\n"
                                        "a,51200,progress,2.5,1,\n"
                                        "a,51200,eval,,2,0.5\n"
                                        "b,6400,progress,2.5,1,\n"
                                        "b,6400,eval,,2,0.5\n"));
        std::ostringstream jsonl;
        fone::export_all_metrics(store.list(), fone::MetricsExportFormat::jsonl, jsonl);
        const json first = json::parse(jsonl.str().substr(0, jsonl.str().find('\n')));
        QCOMPARE(first, json({{"run", "a"},
                              {"config.train_size", 51200},
                              {"event", "progress"},
                              {"step", 1},
                              {"loss", 2.5}}));
    }

    void pack_and_unpack_round_trip() {
        fone::RunStore mine(root("pack-from"));
        const std::string dir = make_run(mine, "shared");
        fone::write_run_notes(dir, {"look at step 2", {"baseline"}, ""});
        const std::string file = root("shared.fonerun");
        const fone::PackResult p = fone::pack_run(dir, file);
        QVERIFY(p.file_bytes > 0);
        // No snapshots unless asked; never the lock.
        std::vector<std::string> names;
        for (const json& m : p.manifest["members"])
            names.push_back(m["name"]);
        QCOMPARE(names, (std::vector<std::string>{"config.json", "status.json", "metrics.jsonl",
                                                  "summary.json", "notes.json", "checkpoint-best.safetensors",
                                                  "checkpoint-last.safetensors"}));
        QCOMPARE(p.manifest["members"][0]["sha256"].get<std::string>(),
                 sha256_of(slurp(dir + "/config.json")));
        fone::RunStore theirs(root("pack-to"));
        make_run(theirs, "shared");  // the name is taken there: the received run is shared-2, said
        const fone::UnpackResult u = fone::unpack_run(theirs, file);
        QCOMPARE(u.wanted_name, std::string("shared"));
        QCOMPARE(u.name, std::string("shared-2"));
        for (const std::string& n : names)
            QCOMPARE(slurp(u.dir + "/" + n), slurp(dir + "/" + n));
        QCOMPARE(theirs.info(u.dir).tags, std::vector<std::string>{"baseline"});
        QCOMPARE(fone::run_identity_of(u.dir), fone::run_identity_of(dir));
        // With snapshots.
        fone::PackOptions with;
        with.with_snapshots = true;
        const fone::PackResult ps = fone::pack_run(dir, root("snap.fonerun"), with);
        QCOMPARE(ps.manifest["members"].back()["name"].get<std::string>(),
                 std::string("snapshots/step-00000002.safetensors"));
        const fone::UnpackResult us = fone::unpack_run(theirs, root("snap.fonerun"), "with-snapshots");
        QVERIFY(fs::exists(us.dir + "/snapshots/step-00000002.safetensors"));
        QCOMPARE(fone::read_pack_manifest(file)["run"].get<std::string>(), std::string("shared"));
        // A live run is not packed; a .pt-only run is sent to convert.
        const fone::RunLock lock = fone::RunLock::acquire(dir);
        QVERIFY(run_error([&] { fone::pack_run(dir, root("live.fonerun")); }).find("trained") !=
                std::string::npos);
        QVERIFY(!fs::exists(root("live.fonerun")));
    }

    void hostile_packs_are_refused_and_leave_the_store_as_it_was() {
        const json good = json::array({member("config.json", kConfig), member("metrics.jsonl", kMetrics)});
        const Entry config{"config.json", kConfig}, metrics{"metrics.jsonl", kMetrics};
        QCOMPARE(refused("good", with_manifest(manifest(good), {config, metrics})), std::string());

        // Path escapes: in the manifest, and in an entry the manifest does not name.
        json escape = good;
        escape.push_back(member("../evil", "x"));
        QVERIFY(refused("escape", with_manifest(manifest(escape), {config, metrics, {"../evil", "x"}}))
                    .find("leaves the run folder") != std::string::npos);
        QVERIFY(refused("escape-entry", with_manifest(manifest(good), {config, {"../../evil", "x"}, metrics}))
                    .find("leaves the run folder") != std::string::npos);
        json absolute = good;
        absolute.push_back(member("/tmp/evil", "x"));
        QVERIFY(
            refused("absolute", with_manifest(manifest(absolute), {config, metrics})).find("absolute path") !=
            std::string::npos);
        // Links and devices, named as members the manifest lists.
        QVERIFY(refused("symlink", with_manifest(manifest(good),
                                                 {config, {"metrics.jsonl", "", AE_IFLNK, "/etc/passwd"}}))
                    .find("symbolic link") != std::string::npos);
        QVERIFY(refused("hardlink",
                        with_manifest(manifest(good),
                                      {config, {"metrics.jsonl", "", AE_IFREG, "config.json", true, 0}}))
                    .find("hard link") != std::string::npos);
        QVERIFY(refused("device", with_manifest(manifest(good), {config, {"metrics.jsonl", "", AE_IFCHR}}))
                    .find("character device") != std::string::npos);
        QVERIFY(refused("fifo", with_manifest(manifest(good), {config, {"metrics.jsonl", "", AE_IFIFO}}))
                    .find("FIFO") != std::string::npos);
        // Duplicate names: in the archive, and in the manifest.
        QVERIFY(refused("duplicate", with_manifest(manifest(good), {config, metrics, metrics}))
                    .find("there twice") != std::string::npos);
        json twice = good;
        twice.push_back(member("metrics.jsonl", kMetrics));
        QVERIFY(
            refused("duplicate-manifest", with_manifest(manifest(twice), {config, metrics})).find("twice") !=
            std::string::npos);
        // A bomb: 32 MB of zeros that gzip packs into a few KB, refused before a byte of it is written.
        const std::string zeros(32u << 20, '\0');
        json bomb = good;
        bomb.push_back(member("summary.json", zeros));
        QVERIFY(refused("bomb", with_manifest(manifest(bomb), {config, metrics, {"summary.json", zeros}}))
                    .find("archive bomb") != std::string::npos);
        // An entry whose header claims more than the manifest.
        QVERIFY(refused("size-lie",
                        with_manifest(manifest(good),
                                      {config, {"metrics.jsonl", kMetrics, AE_IFREG, "", false, 1000}}))
                    .find("its manifest says") != std::string::npos);
        // A digest mismatch.
        json altered = good;
        altered[1]["sha256"] = sha256_of("something else");
        QVERIFY(refused("digest", with_manifest(manifest(altered), {config, metrics})).find("SHA-256") !=
                std::string::npos);
        // 10^6 members (a 3 MB manifest of empty objects: under the size limit, over the count).
        std::string many = "{\"format\":\"fonerun-1\",\"run\":\"r\",\"members\":[{}";
        for (int i = 1; i < 1000000; ++i)
            many += ",{}";
        many += "]}";
        QVERIFY(refused("million", {{fone::kPackManifest, many}, config}).find("more than the 20000") !=
                std::string::npos);
        // A manifest over 4 MB is refused from its header, unread.
        json padded = manifest(good);
        padded["padding"] = std::string(5u << 20, 'p');
        QVERIFY(refused("big-manifest", with_manifest(padded, {config, metrics})).find("allowed") !=
                std::string::npos);
        // Not the manifest first; members a run does not have; a .pt (code) member.
        QVERIFY(refused("order", {config, {fone::kPackManifest, manifest(good).dump()}, metrics})
                    .find("first member") != std::string::npos);
        json pt = good;
        pt.push_back(member("checkpoint-last.pt", "x"));
        QVERIFY(
            refused("pt", with_manifest(manifest(pt), {config, metrics})).find("not one of a run's files") !=
            std::string::npos);
        // Members missing at the end, and a checkpoint that is not safetensors.
        QVERIFY(refused("missing", with_manifest(manifest(good), {config})).find("ends before") !=
                std::string::npos);
        json bad_ckpt = good;
        bad_ckpt.push_back(member("checkpoint-best.safetensors", "not safetensors"));
        QVERIFY(refused("bad-checkpoint",
                        with_manifest(manifest(bad_ckpt),
                                      {config, metrics, {"checkpoint-best.safetensors", "not safetensors"}}))
                    .find("not a valid safetensors") != std::string::npos);
    }

    void truncated_and_foreign_files_are_refused() {
        fone::RunStore mine(root("trunc-from"));
        const std::string file = root("whole.fonerun");
        fone::pack_run(make_run(mine, "r"), file);
        const std::string bytes = slurp(file);
        fone::RunStore theirs(root("trunc-to"));
        const auto before = tree(theirs.root());
        for (const std::size_t cut : {bytes.size() / 2, bytes.size() - 40, std::size_t{30}}) {
            spit(root("cut.fonerun"), bytes.substr(0, cut));
            const std::string e = run_error([&] { fone::unpack_run(theirs, root("cut.fonerun")); });
            QVERIFY2(!e.empty() && e.find("nothing was unpacked") != std::string::npos, e.c_str());
            QVERIFY(tree(theirs.root()) == before);
        }
        spit(root("text.fonerun"), "hello, not an archive\n");
        QVERIFY(run_error([&] { fone::unpack_run(theirs, root("text.fonerun")); }).find("not a .fonerun") !=
                std::string::npos);
        QVERIFY2(::mkfifo(root("pipe.fonerun").c_str(), 0600) == 0, std::strerror(errno));
        QVERIFY(run_error([&] {
                    fone::unpack_run(theirs, root("pipe.fonerun"));
                }).find("not a regular file") != std::string::npos);
        QVERIFY(tree(theirs.root()) == before);
    }
};

QTEST_GUILESS_MAIN(TestRunKeep)
#include "test_run_keep.moc"
