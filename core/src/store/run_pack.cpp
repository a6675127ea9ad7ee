// .fonerun files: a run packed as a gzip'd pax tar through libarchive, and unpacked without trusting it.
#include "fone/store/run_pack.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "fone/build_info.h"
#include "fone/io/file_read.h"
#include "fone/io/file_write.h"
#include "fone/io/json_bounded.h"
#include "fone/io/safetensors.h"
#include "fone/io/shown_text.h"
#include "fone/store/run_lock.h"
#include "fone/store/run_notes.h"
#include "store/pack_support.h"

namespace fone {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using detail::Sha256;
using detail::WriteArchive;
constexpr std::size_t kBlock = detail::kPackBlock;

// A file descriptor closed on every path out.
struct Fd {
    int fd = -1;
    explicit Fd(int f) : fd(f) {}
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
};

// A regular file of the run opened for reading (a link or a special file in a run folder is refused).
int open_member(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        if (errno == ELOOP)
            throw RunError(path + ": a symbolic link: a run's files are never links; not packed");
        throw RunError(path + ": cannot read: " + std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw RunError(path + ": not a regular file; not packed");
    }
    return fd;
}

// ---- Member names --------------------------------------------------------------------------------------

bool plain_name(const std::string& s) {
    if (s.empty() || s.size() > 100 || s.front() == '.') return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
               c == '_' || c == '-';
    });
}

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

const std::set<std::string>& top_level_members() {
    static const std::set<std::string> names = {
        kConfigFile,     kStatusFile,     kMetricsFile,   kSummaryFile,      kNotesFile,
        kBestCheckpoint, kLastCheckpoint, kTokenizerFile, kDataParallelFile, kArchivedFile};
    return names;
}

}  // namespace

std::string pack_member_problem(const std::string& name) {
    if (name.empty()) return "an empty member name";
    if (name.front() == '/') return "an absolute path";
    if (name == ".." || name.rfind("../", 0) == 0 || name.find("/../") != std::string::npos ||
        ends_with(name, "/.."))
        return "a path that leaves the run folder ('..')";
    if (top_level_members().count(name)) return "";
    const auto slash = name.find('/');
    if (slash != std::string::npos && name.find('/', slash + 1) == std::string::npos) {
        const std::string dir = name.substr(0, slash), file = name.substr(slash + 1);
        if (dir == "snapshots" && plain_name(file) && ends_with(file, ".safetensors")) return "";
        if (dir == kPretrainedFilesDir && plain_name(file) && ends_with(file, ".json")) return "";
    }
    return "not one of a run's files";
}

namespace {

// ---- Packing -------------------------------------------------------------------------------------------

struct Member {
    std::string name;
    std::string path;
    std::uint64_t size = 0;
    std::string sha256;
};

// Size and digest of a file, read once.
void measure(Member& m) {
    const Fd f(open_member(m.path));
    Sha256 h;
    std::vector<char> buf(kBlock);
    m.size = 0;
    for (;;) {
        const ssize_t n = ::read(f.fd, buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw RunError(m.path + ": cannot read: " + std::strerror(errno));
        if (n == 0) break;
        h.update(buf.data(), static_cast<std::size_t>(n));
        m.size += static_cast<std::uint64_t>(n);
    }
    m.sha256 = h.hex();
}

// The files of run_dir a pack holds, in the manifest's order.
std::vector<Member> collect_members(const std::string& run_dir, const PackOptions& options) {
    const fs::path dir(run_dir);
    std::vector<Member> out;
    std::error_code ec;
    const auto add = [&](const std::string& name) {
        if (fs::exists(fs::symlink_status(dir / name, ec)))
            out.push_back({name, (dir / name).string(), 0, ""});
    };
    for (const char* f : {kConfigFile, kStatusFile, kMetricsFile, kSummaryFile, kNotesFile, kBestCheckpoint,
                          kLastCheckpoint, kTokenizerFile, kDataParallelFile, kArchivedFile})
        add(f);
    const auto add_folder = [&](const std::string& folder, const std::string& suffix) {
        std::vector<std::string> names;
        for (fs::directory_iterator it(dir / folder, ec), end; !ec && it != end; it.increment(ec))
            if (ends_with(it->path().filename().string(), suffix))
                names.push_back(folder + "/" + it->path().filename().string());
        std::sort(names.begin(), names.end());
        for (const std::string& n : names)
            if (pack_member_problem(n).empty()) add(n);
    };
    add_folder(kPretrainedFilesDir, ".json");
    if (options.with_snapshots) add_folder("snapshots", ".safetensors");
    return out;
}

void check_packable(const std::string& run_dir) {
    const fs::path dir(run_dir);
    std::error_code ec;
    const std::string name = dir.filename().string();
    if (!fs::is_regular_file(dir / kConfigFile, ec)) throw RunError(run_dir + ": not a run (no config.json)");
    const LockProbe lock = probe_run_lock(run_dir);
    if (lock.state == LockState::held)
        throw RunError(name + " is being trained by " + lock.holder.text() + ": pack it once it has stopped");
    const bool safetensors = fs::exists(dir / kBestCheckpoint, ec) || fs::exists(dir / kLastCheckpoint, ec);
    const bool legacy =
        fs::exists(dir / kLegacyBestCheckpoint, ec) || fs::exists(dir / kLegacyLastCheckpoint, ec);
    if (legacy && !safetensors)
        throw RunError(name +
                       ": its checkpoints are .pt files (LibTorch archives, which can run code): convert it "
                       "first with: fone runs convert " +
                       name + " --trust");
}

json manifest_of(const std::string& run_name, const std::vector<Member>& members) {
    json list = json::array();
    std::uint64_t total = 0;
    for (const Member& m : members) {
        list.push_back({{"name", m.name}, {"size", m.size}, {"sha256", m.sha256}});
        total += m.size;
    }
    return {{"format", kPackFormat},
            {"run", run_name},
            {"created", utc_now_iso()},
            {"fone_version", FONE_VERSION},
            {"git_revision", FONE_GIT_REVISION},
            {"made_by", std::string("fone ") + FONE_VERSION + " (git " + FONE_GIT_REVISION + ")"},
            {"members", list},
            {"total_bytes", total}};
}

void archive_check(archive* a, int r, const std::string& what) {
    if (r != ARCHIVE_OK) {
        const char* e = archive_error_string(a);
        throw RunError(what + ": " + (e ? e : "libarchive error"));
    }
}

void write_header(archive* a, const std::string& name, std::uint64_t size, const std::string& out) {
    std::unique_ptr<archive_entry, void (*)(archive_entry*)> e(archive_entry_new(), archive_entry_free);
    archive_entry_set_pathname(e.get(), name.c_str());
    archive_entry_set_size(e.get(), static_cast<la_int64_t>(size));
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_perm(e.get(), 0644);
    archive_entry_set_mtime(e.get(), ::time(nullptr), 0);
    archive_check(a, archive_write_header(a, e.get()), out);
}

void write_bytes(archive* a, const void* data, std::size_t n, const std::string& out) {
    if (n > 0 && archive_write_data(a, data, n) != static_cast<la_ssize_t>(n)) {
        const char* e = archive_error_string(a);
        throw RunError(out + ": cannot write: " + (e ? e : "libarchive error") + " (" + free_space_text(out) +
                       ")");
    }
}

// Streams one member into the archive, checking that it is still what was measured.
void write_member(archive* a, const Member& m, const std::string& out) {
    write_header(a, m.name, m.size, out);
    const Fd f(open_member(m.path));
    Sha256 h;
    std::vector<char> buf(kBlock);
    std::uint64_t done = 0;
    for (;;) {
        const ssize_t n = ::read(f.fd, buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw RunError(m.path + ": cannot read: " + std::strerror(errno));
        if (n == 0 || done + static_cast<std::uint64_t>(n) > m.size) {
            if (n == 0) break;
            throw RunError(m.path + ": changed while it was being packed; pack again");
        }
        h.update(buf.data(), static_cast<std::size_t>(n));
        write_bytes(a, buf.data(), static_cast<std::size_t>(n), out);
        done += static_cast<std::uint64_t>(n);
    }
    if (done != m.size || h.hex() != m.sha256)
        throw RunError(m.path + ": changed while it was being packed; pack again");
}

}  // namespace

PackResult pack_run(const std::string& run_dir, const std::string& out_file, const PackOptions& options) {
    check_packable(run_dir);
    std::vector<Member> members = collect_members(run_dir, options);
    for (Member& m : members)
        measure(m);
    PackResult r;
    r.manifest = manifest_of(fs::path(run_dir).filename().string(), members);
    const std::string manifest_text = r.manifest.dump(1) + "\n";
    std::string tmp;
    const int fd = create_temp_beside(out_file, &tmp);
    bool open = true;
    try {
        WriteArchive a(archive_write_new());
        archive_check(a.get(), archive_write_add_filter_gzip(a.get()), out_file);
        archive_check(a.get(), archive_write_set_format_pax_restricted(a.get()), out_file);
        archive_check(a.get(), archive_write_open_fd(a.get(), fd), out_file);
        write_header(a.get(), kPackManifest, manifest_text.size(), out_file);
        write_bytes(a.get(), manifest_text.data(), manifest_text.size(), out_file);
        for (const Member& m : members) {
            write_member(a.get(), m, out_file);
            r.run_bytes += m.size;
        }
        archive_check(a.get(), archive_write_close(a.get()), out_file);
        if (::fsync(fd) != 0) throw write_error(out_file, "write", errno);
        open = false;
        if (::close(fd) != 0) throw write_error(out_file, "write", errno);
        if (::rename(tmp.c_str(), out_file.c_str()) != 0) throw write_error(out_file, "write", errno);
    } catch (...) {
        if (open) ::close(fd);
        ::unlink(tmp.c_str());
        throw;
    }
    std::error_code ec;
    r.file = out_file;
    r.file_bytes = fs::file_size(out_file, ec);
    r.members = members.size();
    return r;
}

}  // namespace fone
