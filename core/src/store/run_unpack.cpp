// Unpacking a .fonerun without trusting it (fone/store/run_pack.h has the rules): the manifest is checked
// whole before anything is written, each member as it streams in, the run as a whole before it appears.
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

#include "fone/io/file_read.h"
#include "fone/io/json_bounded.h"
#include "fone/io/json_files.h"
#include "fone/io/safetensors.h"
#include "fone/io/shown_text.h"
#include "fone/store/run_notes.h"
#include "fone/store/run_pack.h"
#include "store/pack_support.h"

namespace fone {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using detail::ReadArchive;
using detail::Sha256;
constexpr std::size_t kBlock = detail::kPackBlock;
constexpr std::uint64_t kMaxMemberBytes = 1ull << 40;  // 1 TB: any real file; 20,000 of them sum below 2^55

// A refusal: one line naming the file, and that nothing was unpacked.
[[noreturn]] void refuse(const std::string& where, const std::string& why) {
    throw RunError(where + ": " + why + " (refused; nothing was unpacked)");
}

struct ManifestMember {
    std::string name;
    std::uint64_t size = 0;
    std::string sha256;
    bool seen = false;
};

struct Manifest {
    json j;
    std::string run;
    std::vector<ManifestMember> members;
    std::map<std::string, std::size_t> index;  // name -> members[i]
    std::uint64_t total = 0;
};

// What an entry is when it is not a plain regular file with its own data ("" when it is one).
std::string entry_problem(archive_entry* e) {
    if (archive_entry_hardlink(e)) return "a hard link";
    if (archive_entry_symlink(e)) return "a symbolic link";
    switch (archive_entry_filetype(e)) {
        case AE_IFREG:
            break;
        case AE_IFLNK:
            return "a symbolic link";
        case AE_IFDIR:
            return "a folder";
        case AE_IFCHR:
            return "a character device";
        case AE_IFBLK:
            return "a block device";
        case AE_IFIFO:
            return "a FIFO";
        case AE_IFSOCK:
            return "a socket";
        default:
            return "not a regular file";
    }
    if (archive_entry_sparse_count(e) > 0) return "a sparse file";
    if (!archive_entry_size_is_set(e) || archive_entry_size(e) < 0) return "a file without a size";
    return "";
}

std::string member_label(const char* name) {
    return name ? "member '" + shown_text(name) + "'" : "a member without a name";
}

// The next entry; false at the archive's end. Any damage is a refusal.
bool next_entry(archive* a, archive_entry** e, const std::string& where) {
    const int r = archive_read_next_header(a, e);
    if (r == ARCHIVE_EOF) return false;
    if (r != ARCHIVE_OK) {
        const char* msg = archive_error_string(a);
        refuse(where, std::string("not a .fonerun (a gzip'd tar), or a damaged or truncated one: ") +
                          (msg ? msg : "unreadable"));
    }
    return true;
}

// ---- The manifest --------------------------------------------------------------------------------------

bool is_sha256(const std::string& s) {
    return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

ManifestMember manifest_member(const json& m, const std::string& where) {
    if (!m.is_object() || !m.contains("name") || !m["name"].is_string() || !m.contains("size") ||
        !m["size"].is_number_unsigned() || !m.contains("sha256") || !m["sha256"].is_string())
        refuse(where, "a manifest member without a name, a size and a sha256");
    ManifestMember mm{m["name"].get<std::string>(), m["size"].get<std::uint64_t>(),
                      m["sha256"].get<std::string>()};
    if (const std::string why = pack_member_problem(mm.name); !why.empty())
        refuse(where, member_label(mm.name.c_str()) + " is " + why);
    if (mm.size > kMaxMemberBytes) refuse(where, member_label(mm.name.c_str()) + " is larger than 1 TB");
    if (!is_sha256(mm.sha256)) refuse(where, member_label(mm.name.c_str()) + " has no valid sha256");
    return mm;
}

// The room a pack may take: not a bomb, and not more than the store's disk has free.
void check_room(const Manifest& m, std::uint64_t packed_bytes, const std::string& root,
                const std::string& where) {
    if (m.total > kPackBombAllowance && m.total / kMaxPackExpansion > packed_bytes)
        refuse(where, "its manifest says " + bytes_text(m.total) + " unpacked from " +
                          bytes_text(packed_bytes) + " packed, more than " +
                          std::to_string(kMaxPackExpansion) + " times: an archive bomb, or a damaged file");
    struct statvfs s {};
    if (::statvfs(root.c_str(), &s) == 0) {
        const std::uint64_t free = static_cast<std::uint64_t>(s.f_bavail) * s.f_frsize;
        if (m.total + (1u << 20) > free)
            refuse(where, "the run needs " + bytes_text(m.total) + " and " + root + " has " +
                              bytes_text(free) + " free");
    }
}

Manifest parse_manifest(const std::string& text, const std::string& where) {
    Manifest m;
    std::string error;
    if (!parse_json_bounded(text, where + ": " + kPackManifest, m.j, &error)) refuse(where, error);
    const json& j = m.j;
    if (!j.is_object()) refuse(where, std::string(kPackManifest) + " is not a JSON object");
    const std::string format =
        j.contains("format") && j["format"].is_string() ? j["format"].get<std::string>() : "";
    if (format != kPackFormat)
        refuse(where, "format '" + shown_text(format) + "', not " + kPackFormat +
                          " (made by a newer fone? this one reads " + kPackFormat + ")");
    m.run = j.contains("run") && j["run"].is_string() ? j["run"].get<std::string>() : "";
    if (!j.contains("members") || !j["members"].is_array()) refuse(where, "a manifest without its members");
    if (j["members"].size() > kMaxPackMembers)
        refuse(where, "its manifest lists " + std::to_string(j["members"].size()) +
                          " members, more than the " + std::to_string(kMaxPackMembers) + " a run may have");
    for (const json& item : j["members"]) {
        ManifestMember mm = manifest_member(item, where);
        if (!m.index.emplace(mm.name, m.members.size()).second)
            refuse(where, "its manifest names " + member_label(mm.name.c_str()) + " twice");
        m.total += mm.size;
        m.members.push_back(std::move(mm));
    }
    if (!m.index.count(kConfigFile)) refuse(where, "not a run: its manifest has no config.json");
    return m;
}

Manifest read_manifest(archive* a, const std::string& where) {
    archive_entry* e = nullptr;
    if (!next_entry(a, &e, where)) refuse(where, "an empty archive");
    const char* name = archive_entry_pathname(e);
    if (!name || std::strcmp(name, kPackManifest) != 0)
        refuse(where, std::string("not a .fonerun: its first member is not ") + kPackManifest);
    if (const std::string what = entry_problem(e); !what.empty())
        refuse(where, std::string(kPackManifest) + " is " + what);
    const auto size = static_cast<std::uint64_t>(archive_entry_size(e));
    if (size > kMaxPackManifestBytes)
        refuse(where, std::string(kPackManifest) + " is " + bytes_text(size) + ", more than the " +
                          bytes_text(kMaxPackManifestBytes) + " allowed");
    std::string text(static_cast<std::size_t>(size), '\0');
    std::size_t got = 0;
    while (got < text.size()) {
        const la_ssize_t n = archive_read_data(a, text.data() + got, text.size() - got);
        if (n <= 0) refuse(where, std::string(kPackManifest) + " is cut short (truncated file?)");
        got += static_cast<std::size_t>(n);
    }
    return parse_manifest(text, where);
}

// ---- Members -------------------------------------------------------------------------------------------

// A new file for a member in the hidden folder (its subfolder made when needed): never through a link.
int create_member_file(const std::string& folder, const std::string& name, const std::string& where) {
    const fs::path path = fs::path(folder) / name;
    if (name.find('/') != std::string::npos) {
        const std::string sub = path.parent_path().string();
        if (::mkdir(sub.c_str(), 0755) != 0 && errno != EEXIST) throw write_error(sub, "create", errno);
    }
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (errno == EEXIST) refuse(where, member_label(name.c_str()) + " is there twice");
        throw write_error(path.string(), "create", errno);
    }
    return fd;
}

// Copies an entry's data into fd: at most `size` bytes, the SHA-256 as it goes; the digest's hex.
std::string copy_data(archive* a, int fd, const ManifestMember& mm, const std::string& folder,
                      const std::string& where) {
    Sha256 hash;
    std::vector<char> buf(kBlock);
    std::uint64_t done = 0;
    for (;;) {
        const la_ssize_t n = archive_read_data(a, buf.data(), buf.size());
        if (n == 0) break;
        if (n < 0) {
            const char* msg = archive_error_string(a);
            refuse(where,
                   member_label(mm.name.c_str()) + " is cut short or damaged: " + (msg ? msg : "read error"));
        }
        done += static_cast<std::uint64_t>(n);
        if (done > mm.size)
            refuse(where, member_label(mm.name.c_str()) + " is longer than its manifest says");
        hash.update(buf.data(), static_cast<std::size_t>(n));
        for (la_ssize_t off = 0; off < n;) {
            const ssize_t w = ::write(fd, buf.data() + off, static_cast<std::size_t>(n - off));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) throw write_error((fs::path(folder) / mm.name).string(), "write", errno);
            off += w;
        }
    }
    if (done != mm.size) refuse(where, member_label(mm.name.c_str()) + " is cut short (truncated file?)");
    return hash.hex();
}

void extract_member(archive* a, archive_entry* e, Manifest& m, const std::string& folder,
                    const std::string& where) {
    const char* raw = archive_entry_pathname(e);
    if (!raw) refuse(where, "a member without a name");
    const std::string name = raw;
    if (const std::string what = entry_problem(e); !what.empty())
        refuse(where, member_label(raw) + " is " + what + ": a .fonerun holds regular files only");
    if (const std::string why = pack_member_problem(name); !why.empty())
        refuse(where, member_label(raw) + " is " + why);
    const auto it = m.index.find(name);
    if (it == m.index.end()) refuse(where, member_label(raw) + " is not in the manifest");
    ManifestMember& mm = m.members[it->second];
    if (mm.seen) refuse(where, member_label(raw) + " is there twice");
    mm.seen = true;
    if (static_cast<std::uint64_t>(archive_entry_size(e)) != mm.size)
        refuse(where, member_label(raw) + " is " + std::to_string(archive_entry_size(e)) +
                          " bytes, its manifest says " + std::to_string(mm.size));
    const int fd = create_member_file(folder, name, where);
    std::string digest;
    try {
        digest = copy_data(a, fd, mm, folder, where);
        if (::fsync(fd) != 0) throw write_error((fs::path(folder) / name).string(), "write", errno);
    } catch (...) {
        ::close(fd);
        throw;
    }
    if (::close(fd) != 0) throw write_error((fs::path(folder) / name).string(), "write", errno);
    if (digest != mm.sha256)
        refuse(where, member_label(raw) + " does not match its SHA-256 in the manifest (damaged or altered)");
}

// The unpacked files as a run: its settings readable, every weight file a valid safetensors file.
void check_run_files(const std::string& folder, const Manifest& m, const std::string& where) {
    json config;
    std::string error;
    if (load_json((fs::path(folder) / kConfigFile).string(), config, error) != JsonLoad::ok ||
        !config.is_object())
        refuse(where, "its config.json is not a JSON object");
    for (const ManifestMember& mm : m.members) {
        if (mm.name.size() < 12 || mm.name.compare(mm.name.size() - 12, 12, ".safetensors") != 0) continue;
        try {
            (void)safetensors::File::open((fs::path(folder) / mm.name).string());
        } catch (const std::exception&) {
            refuse(where, member_label(mm.name.c_str()) + " is not a valid safetensors file");
        }
    }
    try {
        (void)read_run_notes(folder);
        (void)read_metrics((fs::path(folder) / kMetricsFile).string());
    } catch (const std::exception& e) {
        refuse(where, std::string("a damaged run file: ") + shown_text(e.what(), 200));
    }
}

UnpackResult unpack_from(const RunStore& store, archive* a, std::uint64_t packed_bytes,
                         const std::string& where, const std::string& wanted) {
    Manifest m = read_manifest(a, where);
    check_room(m, packed_bytes, store.root(), where);
    UnpackResult r;
    r.wanted_name = wanted.empty() ? m.run : wanted;
    if (const std::string why = run_name_problem(r.wanted_name); !why.empty())
        refuse(where, "its run name is not a valid one (" + why + "); give one with --name");
    r.dir = store.publish_run(r.wanted_name, [&](const std::string& folder) {
        archive_entry* e = nullptr;
        while (next_entry(a, &e, where))
            extract_member(a, e, m, folder, where);
        for (const ManifestMember& mm : m.members)
            if (!mm.seen)
                refuse(where, "it ends before " + member_label(mm.name.c_str()) + " (truncated file?)");
        check_run_files(folder, m, where);
    });
    r.name = fs::path(r.dir).filename().string();
    r.run_bytes = m.total;
    r.manifest = std::move(m.j);
    return r;
}

ReadArchive new_reader() {
    ReadArchive a(archive_read_new());
    if (!a) throw RunError("libarchive: out of memory");
    archive_read_support_filter_gzip(a.get());
    archive_read_support_format_tar(a.get());
    return a;
}

// A regular file's descriptor and size: a FIFO or a device is refused, never read.
int open_pack(const std::string& file, std::uint64_t* size) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) throw RunError(file + ": cannot read: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw RunError(file + ": not a regular file");
    }
    *size = static_cast<std::uint64_t>(st.st_size);
    return fd;
}

template <typename Work>
auto with_pack_file(const std::string& file, Work&& work) {
    std::uint64_t size = 0;
    const int fd = open_pack(file, &size);
    ReadArchive a = new_reader();
    try {
        if (archive_read_open_fd(a.get(), fd, kBlock) != ARCHIVE_OK) {
            const char* msg = archive_error_string(a.get());
            refuse(file, std::string("not a .fonerun (a gzip'd tar): ") + (msg ? msg : "unreadable"));
        }
        auto result = work(a.get(), size);
        a.reset();
        ::close(fd);
        return result;
    } catch (...) {
        a.reset();
        ::close(fd);
        throw;
    }
}

}  // namespace

UnpackResult unpack_run(const RunStore& store, const std::string& file, const std::string& name) {
    return with_pack_file(
        file, [&](archive* a, std::uint64_t size) { return unpack_from(store, a, size, file, name); });
}

UnpackResult unpack_run_bytes(const RunStore& store, std::string_view bytes, const std::string& what,
                              const std::string& name) {
    ReadArchive a = new_reader();
    if (archive_read_open_memory(a.get(), bytes.data(), bytes.size()) != ARCHIVE_OK) {
        const char* msg = archive_error_string(a.get());
        refuse(what, std::string("not a .fonerun (a gzip'd tar): ") + (msg ? msg : "unreadable"));
    }
    return unpack_from(store, a.get(), bytes.size(), what, name);
}

json read_pack_manifest(const std::string& file) {
    return with_pack_file(file, [&](archive* a, std::uint64_t size) {
        (void)size;
        return read_manifest(a, file).j;
    });
}

}  // namespace fone
